// What a search says to do with a file it skipped for being over --max-file-bytes: search it with
// grep in the shell; for a job's log (a job URI, which no shell command can open), read
// its end with `jobs read`. Steps as data; the caller renders them.

import { type Guide, guide, step } from "../core/next_step.ts";
import { shellStepForFile } from "../core/shell/file_shell_step.ts";
import type { ShellKind } from "../core/platform/platform.ts";
import type { FileIntent } from "../core/shell/file_command.ts";
import { isJobId, parseJobUri } from "../core/jobs/job_uri.ts";

/** Bytes of a big job log's end the suggested `jobs read` asks for. */
const LOG_END_BYTES = 1000000;

/**
 * How to search `file` (as the search names it) for `source` without view: a sentence fragment
 * with the calls in it, to follow "Search one from the shell" style prose. The calls are written
 * for `shell` (the search root's host's shell; bash when not known).
 */
export function searchBigFileHint(
  file: string,
  source: string,
  regex: boolean,
  shell?: ShellKind,
): Guide {
  const job = parseJobUri(file)?.id;
  if (job !== undefined && isJobId(job)) {
    return guide`A job's log is no file for the shell: read its end with ${
      step("jobs", { action: "read", id: job, bytes: LOG_END_BYTES })
    }`;
  }
  const search: FileIntent = {
    kind: "search",
    text: source,
    max: 100,
    match: regex ? "regex" : "literal",
  };
  return guide`Search one from the shell, e.g. ${
    shellStepForFile(file, search, shell)
  }, or read its first lines with ${shellStepForFile(file, { kind: "head", lines: 200 }, shell)}`;
}
