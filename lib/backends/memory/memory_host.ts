// A Host in memory, for tests and embedders: its files are a MemoryBackend, it runs no commands
// (no jobs: a shell call there is refused as on a host that only serves files), and it states the
// shell hints about its files are written for.

import type { ShellKind } from "../../core/platform/platform.ts";
import type { Host } from "../../ops/ports/host.ts";
import { MemoryBackend } from "./memory_backend.ts";

/**
 * A host whose files live in memory and that runs no commands.
 *
 * @example
 * ```ts
 * import { Locations, MemoryHost } from "@anchorfs/anchorfs";
 *
 * const locations = new Locations(new MemoryHost({ "/app/a.txt": "" }, "pwsh"));
 * locations.localAt("/app/a.txt").host.shell; // "pwsh"
 * ```
 */
export class MemoryHost implements Host {
  readonly files: MemoryBackend;
  readonly shell: ShellKind;

  /**
   * `files`: a MemoryBackend, or the files to start one with (absolute path → text or bytes).
   * `shell`: default cmd where the files have Windows paths, else bash.
   */
  constructor(files: MemoryBackend | Record<string, string | Uint8Array> = {}, shell?: ShellKind) {
    this.files = files instanceof MemoryBackend ? files : new MemoryBackend(files);
    this.shell = shell ?? (this.files.paths.style === "windows" ? "cmd" : "bash");
  }

  get id(): string {
    return this.files.id;
  }
}
