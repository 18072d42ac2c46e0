// Maps operating-system and SFTP failures to AnchorErrors with stable codes. Shared by the
// backends; the ops add the "what to do next" that depends on the tool.

import { Buffer } from "node:buffer";
import { AnchorError, outOfFileHandles } from "../core/errors.ts";
import { guide, step } from "../core/next_step.ts";
import { shellQuote } from "../core/shell/shell_quote.ts";
import {
  type ChangedAtReplace,
  changedAtReplaceText,
  type WriteOptions,
} from "../ops/ports/file_backend.ts";

export function notFound(path: string, what = "file or directory"): AnchorError {
  return new AnchorError({
    code: "NOT_FOUND",
    message: `No ${what} at ${JSON.stringify(path)}.`,
    hint: "Check the path; view the parent directory to see what exists.",
  });
}

/** Converts a thrown Deno/Node error into an AnchorError naming the action and the path. */
export function mapFsError(error: unknown, action: string, path: string): AnchorError {
  if (error instanceof AnchorError) return error;
  const e = error as { name?: string; code?: string; message?: string };
  const code = e?.code ?? e?.name ?? "";
  if (code === "ENOENT" || code === "NotFound" || e?.name === "NotFound") return notFound(path);
  if (code === "EACCES" || code === "EPERM" || code === "PermissionDenied") {
    return new AnchorError({
      code: "PERMISSION_DENIED",
      message: `Permission denied: cannot ${action} ${JSON.stringify(path)}.`,
      hint: "Pick a path this user can access, or ask the user to change the permissions.",
      fault: "environment",
    });
  }
  if (code === "EISDIR" || code === "IsADirectory") {
    return new AnchorError({
      code: "IS_A_DIRECTORY",
      message: `Cannot ${action} ${JSON.stringify(path)}: it is a directory.`,
      hint: "Name a file inside it; view the directory to list its files.",
    });
  }
  if (code === "ENOTDIR" || code === "NotADirectory") {
    return new AnchorError({
      code: "NOT_A_DIRECTORY",
      message: `Cannot ${action} ${
        JSON.stringify(path)
      }: a part of the path is a file, not a directory.`,
      hint: "Check the path; view its parent directory.",
    });
  }
  if (code === "EEXIST" || code === "AlreadyExists") {
    // mkdir -p onto a file ("a.txt/new.txt"): the path is wrong, retrying cannot help.
    return new AnchorError({
      code: "ALREADY_EXISTS",
      message: `Cannot ${action} ${
        JSON.stringify(path)
      }: something already exists there (a file where a directory is needed?).`,
      hint: guide`Check the path; ${step("view", { path })} to see what is there.`,
    });
  }
  if (code === "EROFS") {
    return new AnchorError({
      code: "READ_ONLY",
      message: `Cannot ${action} ${
        JSON.stringify(path)
      }: its file system is mounted read-only, so nothing was changed.`,
      hint: "The arguments are fine; retrying cannot help. Write somewhere else, or ask the user " +
        "to make that file system writable.",
      fault: "environment",
    });
  }
  if (code === "EAGAIN" || code === "WouldBlock") return wouldBlock(action, path);
  if (code === "EMFILE" || code === "ENFILE") {
    return outOfFileHandles(code, `Cannot ${action} ${JSON.stringify(truncatePath(path))}`);
  }
  const caller = callerPathError(e, code, action, path);
  if (caller) return caller;
  if (code === "ENOSPC") {
    return new AnchorError({
      code: "NO_SPACE",
      message: `Cannot ${action} ${JSON.stringify(path)}: the disk is full. Nothing was changed.`,
      hint: "Ask the user to free disk space, then retry the same call.",
      fault: "environment",
    });
  }
  return new AnchorError({
    code: "IO_ERROR",
    message: `Cannot ${action} ${JSON.stringify(path)}: ${e?.message ?? String(error)}`,
    hint:
      "The arguments look fine; retry once, and if it fails again ask the user to check the file system.",
    fault: "environment",
    cause: error,
  });
}

/**
 * A read opened with O_NONBLOCK that found no data yet: a file such as /proc/kmsg, which waits
 * for the next kernel message instead of ending, or a pipe put in the file's place. A blocking
 * read would have held the server (or one of its threads) until data came, maybe never.
 */
function wouldBlock(action: string, path: string): AnchorError {
  return new AnchorError({
    code: "WOULD_BLOCK",
    message:
      `Cannot ${action} ${
        JSON.stringify(path)
      }: reading it would wait for data that may never come (a stream such as /proc/kmsg, not a ` +
      "file with an end), so nothing was read.",
    hint: guide`Read it with the shell under a time limit, e.g. ${
      step("shell", { command: `timeout 5 head -c 65536 ${shellQuote(path)}` })
    }, or name a regular file.`,
  });
}

/**
 * Failures that retrying can never fix, which the IO_ERROR fallback would call the environment's
 * ("the arguments look fine; retry once"): a NUL byte or an over-long name in the path, a loop of
 * symlinks.
 */
function callerPathError(
  e: { name?: string; message?: string },
  code: string,
  action: string,
  path: string,
): AnchorError | undefined {
  if (path.includes("\0") || (e?.name === "TypeError" && /NUL byte/.test(e?.message ?? ""))) {
    const at = path.indexOf("\0");
    return new AnchorError({
      code: "INVALID_PATH",
      message: `Cannot ${action} ${JSON.stringify(path)}: the path contains a NUL byte${
        at >= 0 ? ` (character ${at + 1})` : ""
      }, which no file name can hold. Nothing was read or changed.`,
      hint: guide`Remove the NUL byte (\\u0000) from the path; ${
        step("view", { path: "." })
      } lists the real names.`,
    });
  }
  if (code === "ENAMETOOLONG") {
    return new AnchorError({
      code: "INVALID_PATH",
      message:
        `Cannot ${action} ${
          JSON.stringify(truncatePath(path))
        }: the path (${path.length} characters) or one of its names is longer than the file system allows (255 bytes per ` +
        "name, 4,096 per path on Linux). Nothing was read or changed.",
      hint: guide`Use a shorter path; ${step("view", { path: "." })} lists the real names.`,
    });
  }
  if (code === "ELOOP" || e?.name === "FilesystemLoop") {
    return new AnchorError({
      code: "SYMLINK_LOOP",
      message:
        `Cannot ${action} ${
          JSON.stringify(path)
        }: the path goes through a symlink loop (a link that leads back to itself, directly or ` +
        "through other links), so it never reaches a file; retrying cannot help. Nothing was " +
        "read or changed.",
      hint: guide`${
        step("shell", { command: `readlink ${shellQuote(path)}` })
      } shows where the link points; use the path of the real file, or ask the user to fix the link.`,
    });
  }
  return undefined;
}

/** A path cut for a message: an over-long one would fill the model's context with itself. */
function truncatePath(path: string): string {
  return path.length <= 300 ? path : `${path.slice(0, 150)}…${path.slice(-150)}`;
}

/**
 * FILE_CHANGED: the file is no longer what the edit was based on. `atReplace`: found at the very
 * last step (another program wrote it in that instant; the write was taken back).
 */
export function fileChanged(path: string, atReplace?: ChangedAtReplace): AnchorError {
  return new AnchorError({
    code: "FILE_CHANGED",
    message: atReplace
      ? `${JSON.stringify(path)} ${changedAtReplaceText(atReplace)}`
      : `${JSON.stringify(path)} changed on disk while the edit was being prepared; nothing ` +
        "was written.",
    hint: guide`${step("view", { path })} to see the current content and ids, then retry the edit.`,
    fault: "environment",
    ...(atReplace && { cause: atReplace }),
  });
}

/**
 * Whether the file's content `now` (null: absent) is still what an edit was based on, per
 * WriteOptions.expect; when it is not, the write fails with fileChanged.
 */
export function matchesExpected(
  now: Uint8Array | null,
  expect: NonNullable<WriteOptions["expect"]> | null,
): boolean {
  if (expect === null || now === null) return expect === null && now === null;
  const want = expect.bytes;
  return now.length === want.length &&
    Buffer.from(now.buffer, now.byteOffset, now.length)
      .equals(Buffer.from(want.buffer, want.byteOffset, want.length));
}

/** LOCK_TIMEOUT: `lock` says what the lock is ("an flock of its folder \"/src\"", ...). */
export function lockTimeout(path: string, waitedMs: number, lock: string): AnchorError {
  return new AnchorError({
    code: "LOCK_TIMEOUT",
    message:
      `Could not take the write lock of ${JSON.stringify(path)} within ${
        Math.round(waitedMs / 1000)
      } s: another anchorfs process has held it all that time (the lock is ${lock}). Nothing ` +
      "was read or written.",
    hint:
      "The arguments are fine: retry the same call in a moment; if it keeps failing, ask the user " +
      "whether another anchorfs process is stuck writing that file.",
    fault: "environment",
  });
}

/**
 * A write whose temporary file could not be created although the target exists: a virtual file
 * system (/proc, /sys) that has files but lets no new one be made beside them.
 */
export function noTempBeside(path: string): AnchorError {
  return new AnchorError({
    code: "READ_ONLY",
    message:
      `Cannot write ${
        JSON.stringify(path)
      }: no new file can be made in its folder (a virtual file system such as /proc or /sys?), and ` +
      "edits write a temporary file beside the target first; nothing was written.",
    hint: "The arguments are fine; the edit tools cannot write there. If that file takes writes, " +
      "the user can write it with the shell (e.g. echo VALUE > FILE).",
    fault: "environment",
  });
}
