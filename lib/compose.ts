// Builds the process-wide services from the concrete backends. Called by the composition root
// (main.ts → lib/mcp/command.ts or lib/cli) once per process; the only place that wires
// backends to ops.

import { LocalBackend } from "./backends/local/local_backend.ts";
import { LocalHost } from "./backends/local/local_host.ts";
import type { Hosts } from "./ops/ports/host.ts";
import { SshPool } from "./backends/ssh/ssh_pool.ts";
import { Locations } from "./ops/location.ts";
import { FileLocks } from "./core/file_locks.ts";
import { UndoStore } from "./ops/edit/undo_store.ts";
import { JobManager } from "./ops/jobs/job_manager.ts";
import { describePlatform } from "./core/platform/platform.ts";
import { defaultStateDir } from "./ops/ports/job_store.ts";
import { createLocalProcessRunner } from "./backends/local/process_runner.ts";
import { withStoreDeadline } from "./ops/jobs/store_deadline.ts";
import { DiskJobStore } from "./backends/local/disk_job_store.ts";
import { UndoBlobFiles } from "./backends/local/undo_blob_files.ts";
import type { ShellKind } from "./core/platform/platform.ts";
import { currentPlatform } from "./backends/platform/current_platform.ts";
import { JobLogFiles } from "./ops/jobs/job_log_files.ts";
import type { Services } from "./ops/services.ts";
import { setDefaultHeartbeatMs } from "./ops/jobs/wait_for_job.ts";
import { testTiming } from "./test_timing.ts";
import { createReadLimits } from "./ops/read_limits.ts";
import { requestCollection } from "./backends/local/heap.ts";
import { LazyScanner } from "./backends/local/lazy_scanner.ts";
import { LazyTreeSitterParser } from "./backends/tree_sitter/lazy_tree_sitter.ts";
import { Outliner } from "./ops/outline/outliner.ts";
import { setLoadGuard } from "./core/first_use.ts";
import { loadWithReserve } from "./backends/local/spare_descriptors.ts";
import { setEventTurn } from "./core/event_turn.ts";
import { ioTurn } from "./backends/platform/io_turn.ts";

/** Options of {@linkcode createServices}; every field has a default. */
export interface ServiceOptions {
  /** Seconds to wait for an SSH connection. */
  sshTimeoutSeconds?: number;
  /** anchorfs state dir (jobs live in <dir>/jobs); default from ANCHORFS_STATE_DIR/XDG. */
  stateDir?: string;
  /** This server's pid (job ids start with it; default: this process's). */
  pid?: number;
  /** On-disk log cap per job in bytes (default 1 GiB; env ANCHORFS_JOB_LOG_CAP). */
  jobLogCapBytes?: number;
  /** Largest file a whole-file operation reads (--max-file-bytes; default 16 MiB). */
  maxFileBytes?: number;
  /** `--shell`: the shell local commands run with (default: bash; cmd.exe on Windows). */
  shell?: ShellKind;
  /**
   * `--job-memory` (bytes) and `--job-pids` (processes at once): per-job limits, where jobs get
   * cgroups that carry them (the start-up log says whether they do).
   */
  jobLimits?: { memoryBytes?: number; pids?: number };
}

/**
 * Builds the process-wide services over the real backends: local disk, SSH (`ssh://` paths,
 * connected on first use), shell jobs under the state dir. Creating them starts nothing; release
 * them with {@linkcode closeServices}.
 *
 * @example
 * ```ts
 * import { closeServices, createServices } from "@anchorfs/anchorfs";
 *
 * const services = createServices({ maxFileBytes: 1024 * 1024 });
 * const here = services.locations.localAt(Deno.cwd());
 * (await services.locations.resolve("README.md", here)).path; // `${Deno.cwd()}/README.md`
 * await closeServices(services);
 * ```
 */
export function createServices(options: ServiceOptions = {}): Services {
  // A module that loads on first use gets the descriptors held back for loads, and is not loaded
  // with none free (a load that meets EMFILE can end the process): the call that needed it
  // answers EMFILE, the next one loads it.
  setLoadGuard(loadWithReserve);
  // Long loops give way with a turn that lets I/O in (pings, cancellations), not setImmediate's.
  setEventTurn(ioTurn);
  const local = new LocalBackend();
  const shell = options.shell ?? currentPlatform().defaultShell;
  const sshPool = new SshPool({ timeoutSeconds: options.sshTimeoutSeconds ?? 30 });
  const localHost = new LocalHost(local, shell);
  const locations = new Locations(localHost, sshPool);
  // A remote job of another server (or of a dead one) is reached through this process's pool.
  const jobs = createJobManager(options, locations);
  // This machine's jobs are the manager's (its store, its reaper): handed to the host here.
  localHost.jobs = jobs.localJobs;
  locations.setJobLogs(new JobLogFiles(jobs, shell));
  const services = {
    locations,
    jobs,
    // The undo history's bytes past 16 MB go to files under the state dir, not the heap.
    undo: new UndoStore(
      undefined,
      undefined,
      undefined,
      new UndoBlobFiles(options.stateDir ?? defaultJobStateDir(), options.pid ?? Deno.pid),
    ),
    editLocks: new FileLocks(),
    reads: createReadLimits({
      ...(options.maxFileBytes !== undefined && { maxFileBytes: options.maxFileBytes }),
      reclaim: requestCollection,
    }),
    // On a confined server the workers open files beneath the same held directories. The pool
    // loads on the first listing or search.
    scanner: new LazyScanner(() => local.beneathConfig()),
    // Loads nothing until the first outline: the parser's module then, the grammars on demand.
    outliner: new Outliner(new LazyTreeSitterParser()),
    // The local host states the shell; this reads it from there.
    get shell() {
      return locations.localHost.shell;
    },
  };
  sshPools.set(services, sshPool);
  return services;
}

/** The SSH connection pool behind each Services (closed by closeServices). */
const sshPools = new WeakMap<Services, SshPool>();

function createJobManager(options: ServiceOptions, hosts: Hosts): JobManager {
  // Test-only: job tests shorten the 2 s kill grace and heartbeat (lib/test_timing.ts).
  const timing = testTiming((name) => Deno.env.get(name));
  if (timing.heartbeatMs !== undefined) setDefaultHeartbeatMs(timing.heartbeatMs);
  const envCap = Number(Deno.env.get("ANCHORFS_JOB_LOG_CAP") ?? "");
  const logCapBytes = options.jobLogCapBytes ??
    (Number.isFinite(envCap) && envCap > 0 ? envCap : undefined);
  const pid = options.pid ?? Deno.pid;
  return new JobManager(
    createLocalProcessRunner({
      ...(options.shell && { shell: { kind: options.shell } }),
      ...(options.jobLimits && { limits: options.jobLimits }),
    }),
    {
      // A hung state dir (a network mount that stopped answering) fails a jobs call, not hangs it.
      store: withStoreDeadline(new DiskJobStore(options.stateDir ?? defaultJobStateDir(), pid)),
      pid,
      hosts,
      ...(logCapBytes !== undefined && { logCapBytes }),
      ...(timing.killGraceMs !== undefined && { killGraceMs: timing.killGraceMs }),
    },
  );
}

/** The state dir when none is given: ANCHORFS_STATE_DIR, else the platform's place. */
function defaultJobStateDir(): string {
  return defaultStateDir((key) => Deno.env.get(key), describePlatform(Deno.build.os));
}

/** Releases what the services hold (connections, jobs). Safe to call twice. */
export async function closeServices(services: Services): Promise<void> {
  // Terminates every job this server started and records that as their end.
  await services.jobs.shutdown();
  await services.locations.local.close();
  await services.scanner?.close();
  services.outliner?.close();
  await sshPools.get(services)?.close();
  await services.undo.blobs?.close();
}
