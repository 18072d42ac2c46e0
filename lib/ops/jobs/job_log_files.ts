// A job's log as a read-only file at its job URI (core/jobs/job_uri.ts), so view reads ranges of
// it and searches it like any file (line ids included). What it serves is the log cleaned line by line
// (ANSI, `\r` redraws, control pictures; nothing collapsed, so line numbers are the raw log's);
// the log on disk keeps the raw bytes. Every write is refused.

import { AnchorError } from "../../core/errors.ts";
import { guide, joinGuide, step } from "../../core/next_step.ts";
import { plural } from "../../core/plural.ts";
import { shellStepForFile } from "../../core/shell/file_shell_step.ts";
import { cleanLogForViewing } from "../../core/text/terminal_text.ts";
import type { DirEntry, FileBackend, FileInfo } from "../ports/file_backend.ts";
import { type PathRules, POSIX_PATHS } from "../../core/path/path_rules.ts";
import type { ShellKind } from "../../core/platform/platform.ts";
import type { JobManager } from "./job_manager.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import { parseJobUri } from "../../core/jobs/job_uri.ts";

/** Logs larger than this are not read whole by view; the error names a shell command instead. */
export const VIEWABLE_LOG_BYTES = 64 * 1024 * 1024;

export class JobLogFiles implements FileBackend {
  readonly id = "jobs";
  /** Job URIs are URLs: `/`-separated on every platform. */
  readonly paths: PathRules = POSIX_PATHS;

  /** `shell`: the one local commands run with; the raw-log search a hint suggests is its. */
  constructor(private readonly jobs: JobManager, private readonly shell?: ShellKind) {}

  /** A job URI (a trailing slash or `/log` tolerated) → the job id. */
  private jobId(path: string): string {
    return parseJobUri(path.trim())?.id ?? "";
  }

  /** The job whose log `path` names (JOB_NOT_FOUND for an unknown id): what a view says of it. */
  record(path: string): Promise<JobRecord> {
    return this.jobs.require(this.jobId(path));
  }

  async stat(path: string): Promise<FileInfo | null> {
    // An unknown id throws JOB_NOT_FOUND with the recent ids: better than "no such file".
    const { bytes } = await this.jobs.logInfo(this.jobId(path));
    return { type: "file", size: bytes, mode: 0o444, mtimeMs: null };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const id = this.jobId(path);
    const { bytes, path: onDisk } = await this.jobs.logInfo(id);
    if (bytes > VIEWABLE_LOG_BYTES) throw logTooLarge(id, bytes, onDisk, this.shell);
    const raw = new TextDecoder().decode(await this.jobs.readLog(id, 0, bytes));
    return new TextEncoder().encode(cleanLogForViewing(raw));
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    if (offset === 0) {
      // The start of the log (binary sniffing): cleaning a raw prefix gives the cleaned prefix.
      const raw = await this.jobs.readLog(this.jobId(path), 0, length);
      const text = cleanLogForViewing(new TextDecoder().decode(raw));
      return new TextEncoder().encode(text).subarray(0, length);
    }
    return (await this.readFile(path)).subarray(offset, offset + length);
  }

  private readOnly(path: string, what: string): AnchorError {
    return new AnchorError({
      code: "READ_ONLY",
      message: `${JSON.stringify(path.trim())} is a job's output log: it can be viewed and ` +
        `searched, not ${what}.`,
      hint: guide`Read it with ${
        step("view", { path: path.trim(), start: 1, end: 200 })
      }; edit files of the project instead.`,
    });
  }

  writeFileAtomic(path: string): Promise<void> {
    return Promise.reject(this.readOnly(path, "written"));
  }

  withWriteLock<T>(path: string): Promise<T> {
    return Promise.reject(this.readOnly(path, "edited"));
  }

  mkdirp(path: string): Promise<void> {
    return Promise.reject(this.readOnly(path, "made a directory"));
  }

  removeFile(path: string): Promise<void> {
    return Promise.reject(this.readOnly(path, "removed"));
  }

  readDir(path: string): Promise<DirEntry[]> {
    return Promise.reject(this.readOnly(path, "listed as a directory"));
  }

  realPath(path: string): Promise<string> {
    return Promise.resolve(path.trim());
  }

  homeDir(): Promise<string> {
    return Promise.resolve("/");
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

// Exported for tests.
/**
 * LOG_TOO_LARGE: a job log view will not read whole. Its end through `jobs read`, and the raw
 * log on disk (`onDisk`, where the store keeps one on this machine) searched with `shell`'s
 * search command (grep in bash).
 */
export function logTooLarge(
  id: string,
  bytes: number,
  onDisk: string | undefined,
  shell?: ShellKind,
): AnchorError {
  return new AnchorError({
    code: "LOG_TOO_LARGE",
    message: `The log of job ${id} is ${plural(bytes, "byte")}, more than view reads whole (${
      plural(VIEWABLE_LOG_BYTES, "byte")
    }).`,
    hint: joinGuide(
      "Read its end with ",
      step("jobs", { action: "read", id, bytes: 100000 }),
      onDisk === undefined ? "." : joinGuide(
        ", or search the raw log with the shell: ",
        shellStepForFile(onDisk, { kind: "search", text: "FAIL", max: 50, match: "word" }, shell),
        ".",
      ),
    ),
  });
}
