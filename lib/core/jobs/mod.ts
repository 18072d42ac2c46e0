// lib/core/jobs: jobs as data: records and state transitions, which processes belong to a job,
// command keys and display, heartbeat text, output tails and failure excerpts. Pure.
// This file is the folder's public surface: what code outside lib/core/jobs/ uses.

export { displayCommand } from "./command_display.ts";
export { commandKey } from "./command_key.ts";
export {
  countWarningLines,
  type FailureDigest,
  pickFailureExcerpts,
  WARNING_SEARCH,
} from "./failure_lines.ts";
export {
  cookiesInTable,
  cookieValue,
  describeProcesses,
  JOB_COOKIE_VAR,
  jobCookie,
  type JobProcessTarget,
  type ProcessInfo,
  selectJobProcesses,
} from "./job_processes.ts";
export {
  cliExitCodeFor,
  durationMs,
  endReasonAddsToStatus,
  finishRecord,
  isTerminal,
  type JobExit,
  type JobRecord,
  loseRecord,
  startRecord,
} from "./job_state.ts";
export {
  parsePsEnvironment,
  parsePsTable,
  parseWindowsTable,
  parseWmicCsv,
  PS_ENV_ARGS,
  PS_TABLE_ARGS,
  WINDOWS_TABLE_SCRIPT,
  WMIC_TABLE_ARGS,
} from "./process_table_text.ts";
export { formatDuration, formatProgress, truncateText } from "./progress_text.ts";
