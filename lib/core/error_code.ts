// Every AnchorError code, one line of doc each: the codes are stable strings that scripts and
// tests match on, so a new one is added here first (the compiler rejects any other string).

/** The stable code of an AnchorError (README "Errors"); CLI exit codes are derived from it. */
export type ErrorCode =
  // Arguments and usage
  /** A tool argument has a value of the wrong form (not a number, an unknown command, ...). */
  | "INVALID_ARGUMENT"
  /** A required tool argument was not given (a path, old_text, ...). */
  | "MISSING_ARGUMENT"
  /** A command-line flag of `anchorfs mcp` or a subcommand has a bad value or combination. */
  | "INVALID_FLAG"
  /** A start/end or anchor is not a line id (`42:a3`), or is a bare line number. */
  | "INVALID_LINE_ID"
  /** A batch_edit operation is malformed (unknown op, missing field, not a JSON list). */
  | "INVALID_OPERATION"
  /** A line range is outside the file or reversed. */
  | "INVALID_RANGE"
  /** A path cannot be used: bad quoting, a NUL, a name too long, or drive-relative `C:foo`. */
  | "INVALID_PATH"
  /** A glob pattern does not parse. */
  | "INVALID_PATTERN"
  /** A search regex does not compile as RE2 syntax. */
  | "INVALID_REGEX"
  /** A search regex uses a feature RE2 lacks (backreferences, lookaround). */
  | "UNSUPPORTED_REGEX"
  /** An `ssh://` path is malformed (no host, a relative path, ...). */
  | "INVALID_REMOTE_PATH"
  /** A search's content spans several lines; searches match within one line. */
  | "MULTILINE_SEARCH"
  /** A path argument is the empty string. */
  | "EMPTY_PATH"
  /** A search's content is the empty string. */
  | "EMPTY_SEARCH"
  /** A search's content is longer than a search takes (MAX_SEARCH_CHARS). */
  | "SEARCH_TOO_LONG"
  /** The shell tool got an empty command. */
  | "EMPTY_COMMAND"
  /** A jobs action that acts on one job was called without its id. */
  | "MISSING_JOB_ID"
  // Files and directories
  /** No file or directory at the path. */
  | "NOT_FOUND"
  /** The path names a directory where a file is needed. */
  | "IS_A_DIRECTORY"
  /** The path (or one of its parents) is not a directory where one is needed. */
  | "NOT_A_DIRECTORY"
  /** The path is a device, socket or FIFO, which anchorfs does not read. */
  | "NOT_A_REGULAR_FILE"
  /** Reading the file would wait for data that may never come (/proc/kmsg): nothing was read. */
  | "WOULD_BLOCK"
  /** text_editor create found a file already there. */
  | "FILE_EXISTS"
  /** The target of a create or move already exists. */
  | "ALREADY_EXISTS"
  /** The file looks binary (NUL bytes, invalid text): it is not shown or edited. */
  | "BINARY_FILE"
  /** The file is over the limit read whole (--max-file-bytes). */
  | "FILE_TOO_LARGE"
  /** A job's log is too large to view whole. */
  | "LOG_TOO_LARGE"
  /** The path is read-only to the tools (a job's log, a read-only or virtual file system). */
  | "READ_ONLY"
  /** The operating system refused access to the path. */
  | "PERMISSION_DENIED"
  /** The disk is full; nothing was changed. */
  | "NO_SPACE"
  /** The process or the system has no file descriptor left (EMFILE, ENFILE). */
  | "TOO_MANY_OPEN_FILES"
  /** Another I/O failure from the file system or the lock folder. */
  | "IO_ERROR"
  /** A file name the platform cannot open by name (e.g. bytes Windows cannot spell). */
  | "UNREACHABLE_NAME"
  /** A symlink on the path points at nothing; anchorfs does not write or confine through it. */
  | "DANGLING_SYMLINK"
  /** The path goes through a symlink loop (a link that leads back to itself). */
  | "SYMLINK_LOOP"
  /** The path is outside the directories the server may use (--allow, --roots). */
  | "OUTSIDE_ALLOWED"
  /** The working directory was removed or renamed; a relative write would re-create it. */
  | "WORKDIR_GONE"
  /** The file is one the user's tools run as commands (.git/config, hooks...); not written. */
  | "PROTECTED_FILE"
  /** The client has not answered roots/list yet, so no path can be checked. */
  | "ROOTS_PENDING"
  /** An ssh:// path was given to a build without the SSH backend. */
  | "REMOTE_UNAVAILABLE"
  // Editing
  /** A line id no longer matches its line: the file changed since it was viewed. */
  | "STALE_LINE_ID"
  /** A range's end line was never shown to the agent, so it cannot be checked; view it first. */
  | "LINES_NOT_SHOWN"
  /** An id names one line as given and another as numbered before the session's own edit. */
  | "AMBIGUOUS_LINE_ID"
  /** An operation would put back what the session's own last edit replaced. */
  | "UNDOES_OWN_EDIT"
  /** old_text was not found in the file. */
  | "NO_MATCH"
  /** old_text matches several places and replace_all was not asked for. */
  | "AMBIGUOUS_MATCH"
  /** view's symbol names no declaration of the file (the closest names are listed). */
  | "UNKNOWN_SYMBOL"
  /** view's symbol names several declarations of the file (each one's range is listed). */
  | "AMBIGUOUS_SYMBOL"
  /** An outline or symbol was asked of a file the outline has no grammar for. */
  | "NO_GRAMMAR"
  /** Parsing a file for its outline ran past the parser's deadline and was stopped. */
  | "PARSE_TIMEOUT"
  /** The edit would leave the file as it is; nothing was written. */
  | "NO_CHANGE"
  /** Two batch_edit operations touch the same lines. */
  | "OVERLAPPING_OPERATIONS"
  /** A replacement repeats a line kept beside it (context copied into content). */
  | "REPEATED_CONTEXT_LINE"
  /** The file changed on disk while the edit was being prepared; nothing was written. */
  | "FILE_CHANGED"
  /** The new text has characters the file's single-byte encoding cannot hold. */
  | "UNENCODABLE_TEXT"
  /** Another anchorfs process held the file's write lock too long. */
  | "LOCK_TIMEOUT"
  /** undo_edit found no recorded edit of the file. */
  | "NOTHING_TO_UNDO"
  /** undo_edit refused: the file changed after the recorded edit. */
  | "UNDO_CONFLICT"
  /** A write in place (a hard-linked file) was cut off; its recovery copy is still beside it. */
  | "INTERRUPTED_WRITE"
  // Shell and jobs
  /** The shell policy refused the command (the message names the tool to use). */
  | "SHELL_POLICY"
  /** The shell cannot run in that directory: its host only serves files. */
  | "SHELL_REMOTE_CWD"
  /** The command could not be started (no shell, bad directory, ...). */
  | "SPAWN_FAILED"
  /** The same command is already running in the same directory. */
  | "DUPLICATE_JOB"
  /** The limit of jobs running at once is reached. */
  | "TOO_MANY_JOBS"
  /** No job with that id. */
  | "JOB_NOT_FOUND"
  /** A kill of another server's job on an ssh host could not reach that host. */
  | "REMOTE_KILL_FAILED"
  /** The server is shutting down and starts no new job. */
  | "SERVER_SHUTTING_DOWN"
  /** The job state dir cannot be read. */
  | "STATE_DIR_UNREADABLE"
  /** The job state dir cannot be written. */
  | "STATE_DIR_UNWRITABLE"
  /** The job state dir's disk did not answer in time (a hung network file system, a device). */
  | "STATE_DIR_NOT_ANSWERING"
  /** The call was cancelled by the client before it finished. */
  | "CANCELLED"
  /** The call ran out of its time budget before it finished. */
  | "DEADLINE_EXCEEDED"
  // SSH
  /** ~/.ssh/config has a line anchorfs cannot read. */
  | "SSH_CONFIG_INVALID"
  /** ~/.ssh/config uses a feature anchorfs does not support (a token, a multi-hop jump). */
  | "SSH_CONFIG_UNSUPPORTED"
  /** The host could not be reached (refused, unknown name, jump host down). */
  | "SSH_CONNECT_FAILED"
  /** The host refused every key and method offered. */
  | "SSH_AUTH_FAILED"
  /** Connecting took longer than the timeout. */
  | "SSH_TIMEOUT"
  /** The connection dropped during an operation. */
  | "SSH_CONNECTION_LOST"
  /** The connection was closed because anchorfs is shutting down. */
  | "SSH_CLOSED"
  /** A remote command could not be started over the connection. */
  | "SSH_EXEC_FAILED"
  /** The host's key differs from the one in known_hosts. */
  | "SSH_HOST_KEY_CHANGED"
  /** The host's key is marked @revoked in known_hosts. */
  | "SSH_HOST_KEY_REVOKED"
  /** A new host key could not be recorded in known_hosts. */
  | "SSH_HOST_KEY_UNRECORDED"
  // HTTP serving
  /** --token-file cannot be read. */
  | "TOKEN_FILE_UNREADABLE"
  /** --token-file holds no token. */
  | "TOKEN_FILE_EMPTY"
  /** A bearer token is too short or not one word. */
  | "TOKEN_TOO_WEAK"
  // Ours
  /** A bug in anchorfs: retrying with other arguments will not help. */
  | "INTERNAL";
