// The durable job state: one directory per job under the state dir (`<state>/jobs/ID/`) holding
// record.json (written atomically: temp file + rename) and output.log. Shared by every server
// and by `anchorfs jobs` in another terminal, so nothing here lives only in memory.

import { join } from "node:path";
import { AnchorError } from "../../core/errors.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import {
  defaultStateDir as platformStateDir,
  describePlatform,
  type PlatformDescription,
} from "../../core/platform/platform.ts";

export interface JobPaths {
  dir: string;
  record: string;
  log: string;
  script: string;
  /** Present when someone asked for the job to be killed (so its server records "killed"). */
  killRequest: string;
}

export interface TailRead {
  text: string;
  /** Bytes of output not in `text`: earlier bytes in the log plus bytes dropped by the cap. */
  omittedBytes: number;
  /** Current size of the log file. */
  logBytes: number;
}

/**
 * `$ANCHORFS_STATE_DIR`, else the platform's place (lib/core/platform/platform.ts): Linux
 * `$XDG_STATE_HOME/anchorfs` or `~/.local/state/anchorfs`, macOS
 * `~/Library/Application Support/anchorfs`, Windows `%LOCALAPPDATA%\anchorfs`.
 */
export function defaultStateDir(
  env: (key: string) => string | undefined,
  platform: PlatformDescription = describePlatform("linux"),
): string {
  return platformStateDir(platform, env);
}

const ID_PATTERN = /^[0-9]+-[0-9]+$/;

export function isJobId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export class JobStore {
  /** `<state dir>/jobs`. */
  readonly root: string;

  constructor(stateDir: string) {
    this.root = join(stateDir, "jobs");
  }

  paths(id: string): JobPaths {
    const dir = join(this.root, id);
    return {
      dir,
      record: join(dir, "record.json"),
      log: join(dir, "output.log"),
      script: join(dir, "command.sh"),
      killRequest: join(dir, "kill-requested"),
    };
  }

  private rootTightened = false;

  /** Creates the job's directory and empty log; false if the id is taken. */
  async reserve(id: string): Promise<boolean> {
    await Deno.mkdir(this.root, { recursive: true, mode: 0o700 });
    if (!this.rootTightened) {
      // Records hold full command lines and output (tokens included): a jobs dir made by an
      // older version or by hand with wider permissions is narrowed to the user.
      this.rootTightened = true;
      const info = await Deno.stat(this.root).catch(() => null);
      if (info?.mode != null && (info.mode & 0o077) !== 0) {
        await Deno.chmod(this.root, 0o700).catch(() => {});
      }
    }
    const paths = this.paths(id);
    try {
      await Deno.mkdir(paths.dir, { mode: 0o700 });
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) return false;
      throw e;
    }
    await Deno.writeFile(paths.log, new Uint8Array(), { mode: 0o600 });
    return true;
  }

  /** Writes the record atomically: readers see the old or the new record, never half of one. */
  async write(record: JobRecord): Promise<void> {
    const paths = this.paths(record.id);
    const temp = `${paths.record}.tmp-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.writeTextFile(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    await Deno.rename(temp, paths.record);
  }

  /** Synchronous variant for exit paths. */
  writeSync(record: JobRecord): void {
    const paths = this.paths(record.id);
    const temp = `${paths.record}.tmp-${Deno.pid}-sync`;
    Deno.writeTextFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    Deno.renameSync(temp, paths.record);
  }

  async read(id: string): Promise<JobRecord | undefined> {
    if (!isJobId(id)) return undefined;
    try {
      return JSON.parse(await Deno.readTextFile(this.paths(id).record)) as JobRecord;
    } catch {
      return undefined;
    }
  }

  /** The ids of every record (directory names only; nothing is read). */
  async ids(): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.root)) {
        if (entry.isDirectory && isJobId(entry.name)) ids.push(entry.name);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw this.unreadable(e);
    }
    return ids;
  }

  /** Every record, newest first. */
  async list(): Promise<JobRecord[]> {
    const records: JobRecord[] = [];
    try {
      for await (const entry of Deno.readDir(this.root)) {
        if (!entry.isDirectory || !isJobId(entry.name)) continue;
        const record = await this.read(entry.name);
        if (record) records.push(record);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw this.unreadable(e);
    }
    return records.sort((a, b) => b.startedAt - a.startedAt || compareIds(b.id, a.id));
  }

  /** A state dir that exists but cannot be listed (a file in its path, permissions). */
  private unreadable(e: unknown): AnchorError {
    return new AnchorError({
      code: "STATE_DIR_UNREADABLE",
      message: `Cannot read the job state dir ${JSON.stringify(this.root)}: ${
        e instanceof Error ? e.message : String(e)
      }`,
      hint: "Make the state dir readable (it must be a directory), or point anchorfs at another " +
        "one with --state-dir DIR (or ANCHORFS_STATE_DIR).",
      fault: "environment",
      cause: e,
    });
  }

  async remove(id: string): Promise<void> {
    await Deno.remove(this.paths(id).dir, { recursive: true }).catch(() => {});
  }

  async logSize(id: string): Promise<number> {
    try {
      return (await Deno.stat(this.paths(id).log)).size;
    } catch {
      return 0;
    }
  }

  /**
   * The last `maxBytes` of the log, cut to start at a character boundary. Costs O(maxBytes):
   * it seeks to the end instead of reading the file.
   */
  async readTail(id: string, maxBytes: number, droppedBytes = 0): Promise<TailRead> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.paths(id).log, { read: true });
    } catch {
      return { text: "", omittedBytes: droppedBytes, logBytes: 0 };
    }
    try {
      const size = (await file.stat()).size;
      const want = Math.max(0, Math.min(maxBytes, size));
      await file.seek(size - want, Deno.SeekMode.Start);
      const buffer = new Uint8Array(want);
      let filled = 0;
      while (filled < want) {
        const n = await file.read(buffer.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      let start = 0;
      // Skip UTF-8 continuation bytes so the text starts on a whole character.
      if (size > want) {
        while (start < filled && start < 4 && (buffer[start]! & 0xc0) === 0x80) start++;
      }
      const text = new TextDecoder().decode(buffer.subarray(start, filled));
      return { text, omittedBytes: size - filled + start + droppedBytes, logBytes: size };
    } finally {
      file.close();
    }
  }

  /** At most `length` bytes of the log from `offset` (fewer at its end; none if it is missing). */
  async readRange(id: string, offset: number, length: number): Promise<Uint8Array> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.paths(id).log, { read: true });
    } catch {
      return new Uint8Array();
    }
    try {
      await file.seek(offset, Deno.SeekMode.Start);
      const buffer = new Uint8Array(Math.max(0, length));
      let filled = 0;
      while (filled < buffer.length) {
        const n = await file.read(buffer.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      return buffer.subarray(0, filled);
    } finally {
      file.close();
    }
  }

  async requestKill(id: string): Promise<void> {
    await Deno.writeTextFile(this.paths(id).killRequest, `${Date.now()}\n`, { mode: 0o600 })
      .catch(() => {});
  }

  async killRequested(id: string): Promise<boolean> {
    try {
      await Deno.stat(this.paths(id).killRequest);
      return true;
    } catch {
      return false;
    }
  }
}

function compareIds(a: string, b: string): number {
  const [ap, an] = a.split("-").map(Number);
  const [bp, bn] = b.split("-").map(Number);
  return (ap! - bp!) || (an! - bn!);
}
