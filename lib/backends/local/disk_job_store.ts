// The durable job store: one directory per job under the state dir (`<state>/jobs/ID/`) holding
// record.json (written atomically: temp file + rename), output.log, and the kill-request note.
// Shared by every server and by `anchorfs jobs` in another terminal, so nothing here lives only
// in memory. Every file is the user's alone: records hold full command lines and output.

import { join } from "node:path";
import { AnchorError } from "../../core/errors.ts";
import type { JobRecord } from "../../core/jobs/job_state.ts";
import {
  type JobLog,
  type JobStore,
  type LocalJobFiles,
  newestFirst,
  type TailRead,
} from "../../ops/ports/job_store.ts";
import { isJobId } from "../../core/jobs/job_uri.ts";
import { LogCap, type LogFile } from "../log_cap.ts";

/** The files of one job. */
interface JobPaths extends LocalJobFiles {
  dir: string;
  record: string;
  /** Present when someone asked for the job to be killed (so its server records "killed"). */
  killRequest: string;
}

export class DiskJobStore implements JobStore {
  /** `<state dir>/jobs`. */
  readonly root: string;
  private rootTightened = false;

  /** `pid` names temp files, so two processes never write the same one. */
  constructor(readonly stateDir: string, private readonly pid: number) {
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

  localFiles(id: string): LocalJobFiles {
    const { log, script, record } = this.paths(id);
    return { log, script, record };
  }

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

  async write(record: JobRecord): Promise<void> {
    const paths = this.paths(record.id);
    const temp = `${paths.record}.tmp-${this.pid}-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.writeTextFile(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    await Deno.rename(temp, paths.record);
  }

  async read(id: string): Promise<JobRecord | undefined> {
    if (!isJobId(id)) return undefined;
    try {
      return JSON.parse(await Deno.readTextFile(this.paths(id).record)) as JobRecord;
    } catch {
      return undefined;
    }
  }

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
    return newestFirst(records);
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
    if (!isJobId(id)) return;
    await Deno.remove(this.paths(id).dir, { recursive: true }).catch(() => {});
  }

  async logSize(id: string): Promise<number> {
    try {
      return (await Deno.stat(this.paths(id).log)).size;
    } catch {
      return 0;
    }
  }

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
      const filled = await readFull(file, buffer);
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
      return buffer.subarray(0, await readFull(file, buffer));
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

  openLog(id: string, capBytes: number): JobLog {
    return new LogCap(new DiskLogFile(this.paths(id).log), capBytes);
  }
}

async function readFull(file: Deno.FsFile, buffer: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const n = await file.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled;
}

/**
 * One log file for the cap. Appends go through one O_APPEND handle opened on first use (a
 * remote job streams many chunks); it never creates the file, so a removed job's log stays gone.
 */
class DiskLogFile implements LogFile {
  private appender: Deno.FsFile | undefined;
  private closed = false;

  constructor(private readonly path: string) {}

  size(): number | undefined {
    try {
      return Deno.statSync(this.path).size;
    } catch {
      return undefined;
    }
  }

  readAt(offset: number, buffer: Uint8Array): number {
    const file = Deno.openSync(this.path, { read: true });
    try {
      file.seekSync(offset, Deno.SeekMode.Start);
      let filled = 0;
      while (filled < buffer.length) {
        const n = file.readSync(buffer.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      return filled;
    } finally {
      file.close();
    }
  }

  truncate(length: number): void {
    Deno.truncateSync(this.path, length);
  }

  append(bytes: Uint8Array): void {
    // After close (a note at the job's end), each append opens and closes its own handle.
    const file = this.appender ?? Deno.openSync(this.path, { append: true });
    if (!this.closed) this.appender = file;
    try {
      let rest = bytes;
      while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
    } finally {
      if (this.closed) file.close();
    }
  }

  close(): void {
    this.closed = true;
    this.appender?.close();
    this.appender = undefined;
  }
}
