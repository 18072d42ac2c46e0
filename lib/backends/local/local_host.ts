// This machine as a Host: the local disk, the shell local commands run with (`--shell`, or the
// platform's default), and its jobs. Those are the job manager's (its store keeps their logs, its
// reaper ends them: lib/ops/jobs/job_places.ts), so the composition root hands them over once the
// manager exists; until then the host only serves files.

import type { ShellKind } from "../../core/platform/platform.ts";
import type { FileBackend } from "../../ops/ports/file_backend.ts";
import type { Host } from "../../ops/ports/host.ts";
import type { JobHost } from "../../ops/ports/job_host.ts";

export class LocalHost implements Host {
  constructor(readonly files: FileBackend, readonly shell: ShellKind, public jobs?: JobHost) {}

  get id(): string {
    return this.files.id;
  }
}
