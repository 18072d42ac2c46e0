// Cross-host write locks for remote files: an atomic SFTP mkdir of a lock folder per target under
// the remote user's ~/.cache/anchorfs/locks, kept fresh by a heartbeat while held. A lock whose
// folder has not changed for STALE_MS of our own clock is taken as a crashed holder's and broken.

import type { SFTPWrapper } from "./ssh2_types.d.ts";
import type { SshLink } from "./ssh_link.ts";
import { lockTimeout } from "../fs_errors.ts";

const HEARTBEAT_MS = 3_000;
/** No heartbeat seen for this long: the holder is gone (clock-skew free: only our clock counts). */
const STALE_MS = 20_000;
const DEFAULT_WAIT_MS = 45_000;
const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;

function call<T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    fn((err, value) => err ? reject(err) : resolve(value))
  );
}

function code(e: unknown): number | undefined {
  const c = (e as { code?: unknown })?.code;
  return typeof c === "number" ? c : undefined;
}

export class RemoteWriteLocks {
  waitMs = DEFAULT_WAIT_MS;
  staleMs = STALE_MS;
  /** false once the lock folder could not be made (read-only home): writes go on unlocked. */
  private usable = true;

  /**
   * `keyOf`: one key per file however it is spelled (the backend's path rules, which fold case
   * where the host's directory does).
   */
  constructor(
    private link: SshLink,
    private home: () => Promise<string>,
    private keyOf: (path: string) => Promise<string> = (path) => Promise.resolve(path),
  ) {}

  /** The lock folder of `path` on the remote host. */
  async lockPathOf(path: string): Promise<{ root: string; lock: string }> {
    const root = `${await this.home()}/.cache/anchorfs/locks`;
    const key = await this.keyOf(path);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
    const name = Array.from(
      new Uint8Array(digest).subarray(0, 16),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    return { root, lock: `${root}/${name}.lock` };
  }

  async run<T>(path: string, body: () => Promise<T>): Promise<T> {
    const { root, lock } = await this.lockPathOf(path);
    const held = this.usable && await this.acquire(path, root, lock);
    if (!held) return await body();
    const beat = setInterval(() => {
      const t = Date.now() / 1000;
      this.sftp("refresh write lock", (s) => call<void>((cb) => s.utimes(lock, t, t, cb)))
        .catch(() => {});
    }, HEARTBEAT_MS);
    try {
      return await body();
    } finally {
      clearInterval(beat);
      await this.sftp("release write lock", (s) => call<void>((cb) => s.rmdir(lock, cb)))
        .catch(() => {});
    }
  }

  private sftp<T>(action: string, fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    return this.link.withSftp(action, "unsafe", fn);
  }

  /** true: held; false: locks cannot be made on this host (writes go on unlocked). */
  private async acquire(path: string, root: string, lock: string): Promise<boolean> {
    const started = Date.now();
    let seen: { mtime: number; since: number } | null = null;
    let pause = 10;
    for (;;) {
      try {
        await this.sftp("take write lock", (s) => call<void>((cb) => s.mkdir(lock, cb)));
        return true;
      } catch (e) {
        if (code(e) === SFTP_NO_SUCH_FILE) {
          if (!await this.makeRoot(root)) return false;
          continue;
        }
        if (code(e) === undefined) throw e; // the connection failed: not a lock question
        if (code(e) === SFTP_PERMISSION_DENIED) {
          this.usable = false;
          return false;
        }
      }
      // mkdir failed: held by someone (or not allowed). Watch its heartbeat.
      const st = await this.sftp("check write lock", (s) => call((cb) => s.stat(lock, cb)))
        .catch(() => null) as { mtime?: number } | null;
      if (st === null) {
        if (
          await this.sftp("check lock folder", (s) => call((cb) => s.stat(root, cb)))
            .then(() => false, () => true)
        ) {
          if (!await this.makeRoot(root)) return false;
        }
        continue; // released meanwhile
      }
      const now = Date.now();
      const mtime = st.mtime ?? 0;
      if (!seen || seen.mtime !== mtime) seen = { mtime, since: now };
      else if (now - seen.since >= this.staleMs) {
        // Its holder stopped refreshing it (killed, or lost its connection): break it.
        await this.sftp("break stale write lock", (s) => call<void>((cb) => s.rmdir(lock, cb)))
          .catch(() => {});
        seen = null;
        continue;
      }
      const waited = now - started;
      if (waited >= this.waitMs) {
        throw lockTimeout(path, waited, `the lock folder ${JSON.stringify(lock)} on the host`);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 250);
    }
  }

  private async makeRoot(root: string): Promise<boolean> {
    const parts = root.split("/").filter((p) => p !== "");
    let at = "";
    for (const part of parts) {
      at += `/${part}`;
      await this.sftp("create lock folder", (s) => call<void>((cb) => s.mkdir(at, cb)))
        .catch(() => {});
    }
    const ok = await this.sftp("check lock folder", (s) => call((cb) => s.stat(root, cb)))
      .then(() => true, () => false);
    if (!ok) this.usable = false;
    return ok;
  }
}
