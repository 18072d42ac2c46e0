// An ssh host as one Host: its files over SFTP and its jobs over exec, both on one pooled
// connection (SshLink). Built by the pool; commands there run with bash.

import type { Host } from "../../ops/ports/host.ts";
import { SftpBackend } from "./sftp_files.ts";
import { SshJobHost } from "./remote_job_runner.ts";
import { SshJobs } from "./ssh_jobs.ts";
import type { SshLink } from "./ssh_link.ts";

export class SshHost implements Host {
  readonly files: SftpBackend;
  readonly jobs: SshJobs;
  readonly shell = "bash" as const;

  /** `urlOf` gives a path as the model wrote its host (`ssh://box/x`), for the files' errors. */
  constructor(readonly link: SshLink, urlOf?: (path: string) => string) {
    this.files = new SftpBackend(link, urlOf);
    this.jobs = new SshJobs(new SshJobHost(link));
  }

  get id(): string {
    return this.files.id;
  }
}
