// The last step of a local write that replaces a file: swap the new file in with one atomic
// exchange of names (rename_exchange.ts), then look at what came out. If it is not the file the
// final check read (another program renamed a file over it, or wrote into it, in between), the
// names are exchanged back and the write fails with FILE_CHANGED: an outside write is never
// silently replaced. Never removes a file it cannot show to be its own or the checked one.

import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import { exchange, type ExchangeResult } from "./rename_exchange.ts";
import { fileChanged } from "../fs_errors.ts";

/** A file as the kernel tells it apart from any other. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The new file: its identity and the bytes written into it. */
interface Ours {
  file: FileIdentity;
  bytes: Uint8Array;
}

/** The names a swap works with. */
export interface SwapNames {
  /** The new file's (temp) name and the target's, as the exchange takes them (raw bytes kept). */
  temp: string;
  path: string;
  /** The temp's name as Deno can open it (a folder fd alias for a name that is not UTF-8). */
  tempOpen: string;
  /** The target's name, for messages. */
  shown: string;
  /** The target's identity now, or null when nothing is there (a stat that follows no link). */
  statPath: () => FileIdentity | null;
  /** A free name beside the target for a file that must be kept, as Deno can open it. */
  keptName: () => { open: string; shown: string };
}

const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

function same(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

/** Whether the open file `fd` is a regular file holding exactly `bytes`. */
function holds(fd: number, bytes: Uint8Array): boolean {
  const info = fs.fstatSync(fd);
  if (!info.isFile() || info.size !== bytes.length) return false;
  const buf = Buffer.alloc(bytes.length + 1); // one byte more: a file that grew shows
  let filled = 0;
  while (filled < buf.length) {
    const n = fs.readSync(fd, buf, filled, buf.length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === bytes.length &&
    buf.subarray(0, filled).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
}

/**
 * A swap that is done and checked: the old file waits under the temp's name, open here, until
 * `settle` has looked at it once more and removed it.
 */
export class SwappedOut {
  constructor(
    private readonly names: SwapNames,
    private readonly fd: number,
    private readonly expect: Uint8Array,
    private readonly ours: Ours,
  ) {}

  /**
   * The late look, after the folder's fsync: a program that opened the old file before the swap
   * and wrote into it since wrote into a file that is about to go. Then, if the target is still
   * ours, the names are exchanged back and FILE_CHANGED thrown; if another program has replaced
   * ours meanwhile, the old file is kept beside it (never removed unseen). Else it is removed.
   */
  settle(): void {
    try {
      if (holds(this.fd, this.expect)) {
        fs.unlinkSync(this.names.tempOpen);
        return;
      }
      if (same(this.names.statPath(), this.ours.file)) {
        throw changed(this.names, swapBack(this.names, this.ours));
      }
      keep(this.names); // ours was replaced since: that program's file stays the target
    } finally {
      fs.closeSync(this.fd);
    }
  }
}

/**
 * After the final check read `base` with content `expect`: exchanges the temp file (holding
 * `written`) and the target, then checks that what came out is `base` with that content. null
 * when this system or file system cannot exchange (nothing changed: the caller renames, as
 * before the swap existed). Throws FILE_CHANGED, with the target as the other program left it,
 * when it is not.
 */
export function swapChecked(
  names: SwapNames,
  written: Uint8Array,
  expect: Uint8Array,
  base: FileIdentity,
): SwappedOut | null {
  const ours = { file: identityOf(fs.lstatSync(names.tempOpen)), bytes: written };
  let swapped: ExchangeResult;
  try {
    swapped = exchange(names.temp, names.path);
  } catch (e) {
    // The target went away after the check (moved or deleted by another program).
    if (e instanceof Deno.errors.NotFound) throw changed(names, undefined);
    throw e;
  }
  if (!swapped.done) return null;
  let fd: number;
  try {
    fd = fs.openSync(names.tempOpen, READ_FLAGS);
  } catch (e) {
    swapBack(names, ours);
    throw e;
  }
  let good = false;
  try {
    good = same(identityOf(fs.fstatSync(fd)), base) && holds(fd, expect);
  } finally {
    if (!good) fs.closeSync(fd);
  }
  if (!good) throw changed(names, swapBack(names, ours));
  return new SwappedOut(names, fd, expect, ours);
}

function changed(names: SwapNames, kept: string | undefined): Error {
  return fileChanged(names.shown, { atReplace: true, ...(kept !== undefined && { kept }) });
}

/**
 * Exchanges the names back, so the target is again what another program put there, and removes
 * the new file. If what comes back is not ours (a program replaced our file in the instant it
 * was the target), that file is the newest: it is swapped in again and the other one kept.
 * Returns the kept file's name as shown, if one was kept.
 */
function swapBack(names: SwapNames, ours: Ours): string | undefined {
  try {
    exchange(names.temp, names.path);
  } catch {
    // The target is gone since (a program removed it): the file it had stays under a kept name.
    return keep(names);
  }
  if (same(identityOf(fs.lstatSync(names.tempOpen)), ours.file)) {
    // A program that wrote into our file while it was the target wrote into one about to go.
    if (!intact(names.tempOpen, ours.bytes)) return keep(names);
    fs.unlinkSync(names.tempOpen);
    return undefined;
  }
  exchange(names.temp, names.path);
  return keep(names);
}

/** Whether the file at `open` still holds exactly `bytes`. */
function intact(open: string, bytes: Uint8Array): boolean {
  const fd = fs.openSync(open, READ_FLAGS);
  try {
    return holds(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** Moves the file under the temp's name to a kept name beside the target; that name, shown. */
function keep(names: SwapNames): string {
  const kept = names.keptName();
  fs.renameSync(names.tempOpen, kept.open);
  return kept.shown;
}

function identityOf(info: { dev: number; ino: number }): FileIdentity {
  return { dev: info.dev, ino: info.ino };
}

/**
 * The start-up line saying how local writes replace a file (`support`: exchangeSupport()), so the
 * user knows whether the last instant before a replace is closed against other programs.
 */
export function writeModeLine(support: ExchangeResult): string {
  if (support.done) {
    return "local writes swap the new file in (renameat2 RENAME_EXCHANGE) and check what " +
      "they swapped out, so another program's write in the last instant is never overwritten " +
      "(on a file system that cannot exchange names: a rename right after the final check)";
  }
  return `local writes rename right after a final content check (${support.reason}): a write ` +
    "by another program in the instant between that check and the rename can be overwritten " +
    "(docs/security.md, Writing safely)";
}
