// Process-wide services shared by every session: file backends, and (later) jobs and the undo
// history. Ops receive these as arguments; lib/compose.ts builds them.

import type { Confinement } from "./confinement.ts";
import type { JobManager } from "./jobs/job_manager.ts";
import type { Locations } from "./location.ts";
import type { FileLocks } from "./edit/file_locks.ts";
import type { UndoStore } from "./edit/undo_store.ts";
import type { ContentScanner } from "./search.ts";
import type { ReadLimits } from "./read_limits.ts";
import type { ShellKind } from "../core/platform/platform.ts";

export interface Services {
  locations: Locations;
  /** Undo history of edits (text_editor undo_edit), per file, for the life of the server. */
  undo: UndoStore;
  /** Serializes edits to the same file inside the server. */
  editLocks: FileLocks;
  /** The whole-file size limit (--max-file-bytes) and the byte budget of reads in flight. */
  reads: ReadLimits;
  /** Shell jobs: started by the shell tool, durable under the state dir (lib/ops/jobs). */
  jobs: JobManager;
  /** Optional parallel prefilter for literal searches on local disk (view); same results. */
  scanner?: ContentScanner;
  /** Set by --allow / --roots (anchorfs mcp): the directories the file tools may use. */
  confinement?: Confinement;
  /** The shell local commands run with (`--shell`; the platform's default when absent). */
  shell?: ShellKind;
}
