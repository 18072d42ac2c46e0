// The undo history's bytes in files (ops/ports/undo_blobs.ts): `<state dir>/undo/<pid>-<id>/<n>`,
// the folder this server's own, made on the first write, removed when the server ends. Only the
// user reads them (0700 / 0600): they are the user's files as they were before each edit. A
// server killed before it could remove its folder leaves it; the next server's first write
// removes every such folder whose process is gone.

import { join } from "node:path";
import type { UndoBlobs } from "../../ops/ports/undo_blobs.ts";
import { isProcessAlive } from "./dead_temps.ts";

/** A write that takes longer (a state dir on a mount that stopped answering) keeps the bytes in
 * memory instead: the edit that made them has answered already, but the next must not wait. */
const WRITE_DEADLINE_MS = 10_000;
const READ_DEADLINE_MS = 30_000;

export class UndoBlobFiles implements UndoBlobs {
  private readonly root: string;
  private dir: string | null = null;
  /** The folder being made: the server's and its HTTP agents' histories write at once. */
  private opening: Promise<string> | null = null;
  private next = 0;
  private closed = false;

  constructor(stateDir: string, private readonly pid: number = Deno.pid) {
    this.root = join(stateDir, "undo");
  }

  async put(bytes: Uint8Array): Promise<string | null> {
    if (this.closed) return null;
    try {
      const dir = this.dir ?? await (this.opening ??= this.open().finally(() => {
        this.opening = null;
      }));
      const name = String(this.next++);
      await within(
        WRITE_DEADLINE_MS,
        Deno.writeFile(join(dir, name), bytes, { mode: 0o600, createNew: true }),
      );
      return name;
    } catch {
      return null;
    }
  }

  async get(handle: string): Promise<Uint8Array> {
    if (this.dir === null || !/^\d+$/.test(handle)) throw new Error(`no undo bytes ${handle}`);
    return await within(READ_DEADLINE_MS, Deno.readFile(join(this.dir, handle)));
  }

  drop(handle: string): void {
    if (this.dir === null || !/^\d+$/.test(handle)) return;
    Deno.remove(join(this.dir, handle)).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.dir !== null) await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }

  /** Makes this server's folder, after removing those of servers that are gone. */
  private async open(): Promise<string> {
    await Deno.mkdir(this.root, { recursive: true, mode: 0o700 });
    await this.removeDeadFolders();
    const dir = join(this.root, `${this.pid}-${crypto.randomUUID().slice(0, 8)}`);
    await Deno.mkdir(dir, { mode: 0o700 });
    this.dir = dir;
    return dir;
  }

  private async removeDeadFolders(): Promise<void> {
    try {
      for await (const entry of Deno.readDir(this.root)) {
        const pid = Number(/^(\d+)-[0-9a-f]+$/.exec(entry.name)?.[1] ?? NaN);
        if (!entry.isDirectory || !Number.isInteger(pid) || pid === this.pid) continue;
        if (isProcessAlive(pid)) continue;
        await Deno.remove(join(this.root, entry.name), { recursive: true }).catch(() => {});
      }
    } catch { /* unreadable: nothing removed */ }
  }
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
