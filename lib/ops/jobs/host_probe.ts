// Before `jobs list` reconciles a dead server's remote jobs (which means reaching their hosts),
// each host is asked once, all at once, for a short time: a listing never waits out
// --ssh-timeout for a host that does not answer. Jobs on such hosts are listed as they are
// recorded, marked with why and when, and left for a call that may wait (jobs read, kill).

import { formatTarget, parseRemoteUrl } from "../../core/ssh/remote_url.ts";
import { stripTrailing } from "../../core/path/path_text.ts";
import { formatDuration } from "../../core/jobs/progress_text.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";

/** The job host of a remote job's directory (its record's ssh:// cwd); rejects when unreachable. */
type JobHostAt = (cwdUrl: string) => Promise<unknown>;

/** How long a listing waits for a remote job's host (default of JobManagerOptions.hostProbeMs). */
export const HOST_PROBE_MS = 3000;

/** A host that did not answer a listing's probe. */
export interface HostCheck {
  /** "no answer within 3s", "Cannot connect to …: the connection was refused …". */
  reason: string;
  /** When it was asked (ms since the epoch). */
  checkedAt: number;
}

/** A listed record; `unreachable` is set when its host had to be reached and was not. */
export type ListedJob = JobRecord & { unreachable?: HostCheck };

/** The host part of an ssh:// directory (`user@host:port` as written), one probe per host. */
export function hostKey(cwd: string): string {
  try {
    return formatTarget(parseRemoteUrl(cwd).target);
  } catch {
    return cwd;
  }
}

/**
 * Asks the host of each directory (one per host, concurrently) whether it can be reached within
 * `boundMs`; resolves with the hosts that could not, by hostKey. A connect still in progress
 * carries on in the background (the pool keeps it for the next call).
 */
export async function probeHosts(
  cwds: readonly string[],
  hosts: JobHostAt,
  boundMs: number,
  now: () => number,
): Promise<Map<string, HostCheck>> {
  const byHost = new Map(cwds.map((cwd) => [hostKey(cwd), cwd]));
  const down = new Map<string, HostCheck>();
  await Promise.all([...byHost].map(async ([key, cwd]) => {
    const checkedAt = now();
    const reason = await probeHost(cwd, hosts, boundMs);
    if (reason !== undefined) down.set(key, { reason, checkedAt });
  }));
  return down;
}

/** Why the host of `cwd` cannot be reached within `boundMs`, or undefined when it can. */
async function probeHost(
  cwd: string,
  hosts: JobHostAt,
  boundMs: number,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${formatDuration(boundMs)}`), boundMs);
  });
  const reached = hosts(cwd).then(
    () => undefined,
    (e: Error) => stripTrailing(e.message, "."),
  );
  try {
    return await Promise.race([reached, late]);
  } finally {
    clearTimeout(timer);
  }
}
