// What a search says to do with a file it skipped for being over --max-file-bytes: search it with
// grep in the shell; for a job's log (`anchorfs://jobs/ID`, a URI no shell command can open), read
// its end with `jobs read`. Steps as data; the caller renders them.

import { type Guide, guide, step } from "../core/next_step.ts";
import { shellStepForFile } from "../core/shell/file_shell_step.ts";
import { shellQuote } from "../core/shell/shell_quote.ts";

/** Bytes of a big job log's end the suggested `jobs read` asks for. */
const LOG_END_BYTES = 1000000;

/**
 * How to search `file` (as the search names it) for `source` without view: a sentence fragment
 * with the call in it, to follow "Search one from the shell" style prose.
 */
export function searchBigFileHint(file: string, source: string, regex: boolean): Guide {
  const job = /^anchorfs:\/\/jobs\/([0-9]+-[0-9]+)\/?$/.exec(file)?.[1];
  if (job !== undefined) {
    return guide`A job's log is no file for the shell: read its end with ${
      step("jobs", { action: "read", id: job, bytes: LOG_END_BYTES })
    }`;
  }
  return guide`Search one from the shell, e.g. ${
    shellStepForFile(
      file,
      (f) => `grep -n${regex ? "P" : "F"} -m 100 -e ${shellQuote(source)} ${f}`,
    )
  }, or read a range of it with the shell (sed -n '1,200p', head, tail)`;
}
