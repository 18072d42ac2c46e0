// A place where files live and commands run, as one interface: its files, the jobs it can run
// (an ssh host's), and the shell its commands run with and hints are written for. The local
// machine (lib/backends/local/local_host.ts), an ssh host (lib/backends/ssh/ssh_host.ts, one
// connection for both) and memory (tests) implement it. Interfaces only.

import type { ShellKind } from "../../core/platform/platform.ts";
import type { FileBackend } from "./file_backend.ts";
import type { JobHost } from "./job_host.ts";

/**
 * A place where files live and commands run: what a {@linkcode Location} is on.
 *
 * @example
 * ```ts
 * import { filesHost, Locations, MemoryBackend } from "@anchorfs/anchorfs";
 *
 * const locations = new Locations(filesHost(new MemoryBackend({ "/app/a.txt": "" }), "bash"));
 * locations.localAt("/app/a.txt").host.shell; // "bash"
 * ```
 */
export interface Host {
  /** The files' id ("local", "memory", "ssh://user@host:port"): used in keys and messages. */
  readonly id: string;
  /** The machine's files. */
  readonly files: FileBackend;
  /**
   * Runs shell commands there: this machine's through the job manager's process runner and
   * reaper, an ssh host's over its own connection. Absent for a host that only serves files.
   * Wiring between the backends and the job manager, not part of the public API.
   * @ignore
   */
  readonly jobs?: JobHost;
  /** The shell commands run with there; suggested shell calls about its files are written so. */
  readonly shell: ShellKind;
}

/** Finds the host of a place named by url, as the job manager needs for another server's job. */
export interface Hosts {
  /**
   * The host `url` (a plain path or an ssh:// URL, as a job record's cwd) is on, connecting on
   * first use; rejects when it cannot be resolved or reached.
   */
  hostAt(url: string): Promise<Host>;
}

/** A host of files only (memory, or a backend a test or an embedder hands over). */
export function filesHost(files: FileBackend, shell?: ShellKind): Host {
  // Without a stated shell: cmd where the disk has Windows paths, else bash.
  return {
    id: files.id,
    files,
    shell: shell ?? (files.paths.style === "windows" ? "cmd" : "bash"),
  };
}
