// Process-wide services shared by every session: path resolution over the file backends, shell
// jobs, the undo history, edit locks and read limits. Ops receive these as arguments;
// lib/compose.ts builds them.

import type { Confinement } from "./confinement.ts";
import type { JobManager } from "./jobs/job_manager.ts";
import type { Locations } from "./location.ts";
import type { FileLocks } from "../core/file_locks.ts";
import type { UndoStore } from "./edit/undo_store.ts";
import type { ContentScanner } from "./ports/worker_pool.ts";
import type { ReadLimits } from "./read_limits.ts";
import type { ShellKind } from "../core/platform/platform.ts";
import type { Outliner } from "./outline/outliner.ts";
import type { ExecFileGuard } from "./edit/exec_guard.ts";

/**
 * The process-wide state every session and tool shares. Build it with
 * {@linkcode createServices}, hand it to {@linkcode createServerFactory} (with a
 * {@linkcode Session}), and release it with {@linkcode closeServices}.
 *
 * Only `locations` and `shell` are public API: the other fields wire anchorfs's own layers
 * together (jobs, undo, locks, limits) and change without notice.
 */
export interface Services {
  /** Resolves the paths tools are given into backends and absolute paths. */
  locations: Locations;
  /**
   * Undo history of edits (text_editor undo_edit), per file, for the life of the server.
   * @ignore
   */
  undo: UndoStore;
  /**
   * Serializes edits to the same file inside the server.
   * @ignore
   */
  editLocks: FileLocks;
  /**
   * The whole-file size limit (--max-file-bytes) and the byte budget of reads in flight.
   * @ignore
   */
  reads: ReadLimits;
  /**
   * Shell jobs: started by the shell tool, durable under the state dir (lib/ops/jobs).
   * @ignore
   */
  jobs: JobManager;
  /**
   * Optional parallel prefilter for literal searches on local disk (view); same results.
   * @ignore
   */
  scanner?: ContentScanner;
  /**
   * Outlines and symbols for view: the parser (loaded on first use) and its cache.
   * @ignore
   */
  outliner?: Outliner;
  /**
   * Set by --allow / --roots (anchorfs mcp): the directories the file tools may use.
   * @ignore
   */
  confinement?: Confinement;
  /**
   * Set by --no-shell (or --protect-exec-files): the edit tools refuse files that the user's tools
   * run as commands (.git/config, hooks, .envrc, ...).
   * @ignore
   */
  execFiles?: ExecFileGuard;
  /**
   * The shell local commands run with (`--shell`; the platform's default when absent): read from
   * `locations.localHost`, which states it (hints about a file read its location's host).
   */
  readonly shell?: ShellKind;
}
