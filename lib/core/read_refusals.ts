// The refusals of a read that backends and use cases share: a path that is not a regular file
// (opening a FIFO blocks, a device never ends) and a file over a read's size limit. Pure: the
// caller passes what it stat'ed; the hints name the shell call or the jobs call that reads it.

import { AnchorError } from "./errors.ts";
import { type Guide, guide, step } from "./next_step.ts";
import { plural } from "./plural.ts";
import { formatSize } from "./byte_size.ts";
import { fileShellDialect, shellStepForFile } from "./shell/file_shell_step.ts";
import type { ShellKind } from "./platform/platform.ts";
import { isJobId, parseJobUri } from "./jobs/job_uri.ts";

/** What a stat says of a path, as far as these refusals need it (lib/ops/ports FileInfo fits). */
interface FileKind {
  type: "file" | "dir" | "symlink" | "other";
  special?: "fifo" | "character device" | "block device" | "socket";
}

/** What a non-regular file is, in words ("a FIFO (named pipe)", "a character device"). */
export function describeSpecial(info: FileKind): string {
  switch (info.special) {
    case "fifo":
      return "a FIFO (named pipe)";
    case "character device":
      return "a character device";
    case "block device":
      return "a block device";
    case "socket":
      return "a socket";
    default:
      return "not a regular file";
  }
}

/**
 * Refuses anything but a regular file before it is opened: opening a FIFO blocks until a writer
 * comes, and a device such as /dev/zero never ends. `shell`: the one the hint's call is written
 * for (the file's Host.shell; bash when not known).
 */
export function assertRegularFile(
  url: string,
  info: FileKind,
  action: string,
  shell?: ShellKind,
): void {
  if (info.type === "file" || info.type === "dir") return;
  throw new AnchorError({
    code: "NOT_A_REGULAR_FILE",
    message:
      `${JSON.stringify(url)} is ${
        describeSpecial(info)
      }, not a regular file; ${action} opens only regular files (reading it could block or never ` +
      "end), so nothing was read or changed.",
    hint: guide`Use the shell for it, e.g. ${
      shellStepForFile(url, { kind: "describe" }, shell)
    }, or name a regular file.`,
  });
}

/**
 * A file a bounded bulk read (a search) did not read because it is larger than `limit`. Callers
 * count these and say which were left out; the hint is for a caller that shows it alone.
 * `statSize`: what the stat said, when the read itself went past the limit.
 */
export function fileTooLargeToRead(
  url: string,
  size: number,
  limit: number,
  statSize?: number,
): AnchorError {
  return new AnchorError({
    code: "FILE_TOO_LARGE",
    message: `${sizeClause(url, size, limit, statSize)}, over the ${
      formatSize(limit)
    } limit of this read, so it was not read.`,
    hint: guide`${
      bigFileAlternatives(url)
    } The limit is set by the server's --max-file-bytes flag.`,
  });
}

/**
 * The file and its size, for FILE_TOO_LARGE. A read that went past a smaller stat size (a /proc
 * file says 0 bytes, a log grows while read) stopped one byte past the limit: its real size is
 * unknown, so the clause says "more than" the limit and what the stat said.
 */
/** "2.0 MB (2,097,152 bytes)"; "17 bytes" once, where the short form is already exact. */
export function exactSize(bytes: number): string {
  const exact = plural(bytes, "byte");
  const short = formatSize(bytes);
  return short === exact ? exact : `${short} (${exact})`;
}

export function sizeClause(url: string, size: number, limit: number, statSize?: number): string {
  if (statSize === undefined || statSize >= size) {
    return `${JSON.stringify(url)} is ${exactSize(size)}`;
  }
  return `${JSON.stringify(url)} holds more than ${
    formatSize(limit)
  } although its size on disk says ${
    plural(statSize, "byte")
  } (a /proc-style file, or one growing while it was read)`;
}

/**
 * The alternatives for reading part of a big file: the shell (written for `shell`, see
 * its Host.shell), since a search (view with content) skips files above the same
 * --max-file-bytes limit.
 */
export function bigFileAlternatives(url: string, shell?: ShellKind): Guide {
  const job = parseJobUri(url)?.id;
  if (job !== undefined && isJobId(job)) {
    // A job's log is not a path the shell can read, and a search skips it like any big file:
    // name the call that reads it.
    return guide`Read its end: ${step("jobs", { action: "read", id: job, bytes: 1000000 })}.`;
  }
  const search = { kind: "search", text: "TEXT", max: 100, match: "word" } as const;
  return guide`Search it with the shell: ${
    shellStepForFile(url, search, shell)
  }; or read a range: ${shellStepForFile(url, { kind: "head", lines: 200 }, shell)}${
    fileShellDialect(url, shell) === "posix" ? " (head and tail work too)" : ""
  }.`;
}
