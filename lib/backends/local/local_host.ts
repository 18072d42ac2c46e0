// This machine as a Host: the local disk and the shell local commands run with (`--shell`, or
// the platform's default). Its jobs are started by the job manager through the local process
// runner (lib/backends/local/process_runner.ts), not through a JobHost.

import type { ShellKind } from "../../core/platform/platform.ts";
import type { FileBackend } from "../../ops/ports/file_backend.ts";
import type { Host } from "../../ops/ports/host.ts";

export class LocalHost implements Host {
  constructor(readonly files: FileBackend, readonly shell: ShellKind) {}

  get id(): string {
    return this.files.id;
  }
}
