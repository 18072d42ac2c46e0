// The last step of a local write that replaces a file: swap the new file in with one atomic
// exchange of names (rename_exchange.ts), then look at what came out. If it is not the file the
// final check read (another program renamed a file over it, or wrote into it, in between), the
// names are exchanged back and the write fails with FILE_CHANGED: an outside write is never
// silently replaced. Never removes a file it cannot show to be its own or the checked one. The
// steps run on a SwapSite: names by path text here, or beneath a held folder (confined_swap.ts).

import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import { exchange, type ExchangeResult } from "./rename_exchange.ts";
import { fileChanged } from "../fs_errors.ts";

/**
 * A file as the kernel tells it apart from any other (as one SwapSite reports it: Deno's stat
 * numbers by path, or statx's on a descriptor; only compared within one site).
 */
export interface FileIdentity {
  dev: number | string;
  ino: number | bigint;
}

/** The new file: its identity and the bytes written into it. */
interface Ours {
  file: FileIdentity;
  bytes: Uint8Array;
}

/** A file opened for reading by a SwapSite: what a swap looks at in what it swapped out. */
export interface SwapFile {
  /** Its identity, whether it is a regular file, and its size. */
  stat(): FileIdentity & { isFile: boolean; size: number };
  /** Reads up to `length` bytes into `buf` at `offset` from the file's `position`; the count. */
  read(buf: Uint8Array, offset: number, length: number, position: number): number;
  close(): void;
}

/**
 * Where a swap happens: the new (temp) file's name and the target's, beside each other in one
 * folder, and the few steps a swap takes there. By path text (pathSite, an unconfined write) or
 * relative to a folder descriptor opened beneath an allowed directory (confined_swap.ts).
 */
export interface SwapSite {
  /** The target's path as named, for messages. */
  shown: string;
  /** Exchanges the temp's name and the target's in one atomic step (rename_exchange.ts). */
  exchange(): ExchangeResult;
  /** The identity of the file under the temp's name (no link followed). */
  tempIdentity(): FileIdentity;
  /** The target's identity now, or null when nothing is there (no link followed). */
  targetIdentity(): FileIdentity | null;
  /** Opens the file under the temp's name for reading, without blocking. */
  openTemp(): SwapFile;
  removeTemp(): void;
  /** Moves the file under the temp's name to a free name beside the target; that name, shown. */
  keepTemp(): string;
}

/** The names pathSite works with, by path text. */
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

/** The SwapSite of a write named by path text (an unconfined local write). */
export function pathSite(names: SwapNames): SwapSite {
  return {
    shown: names.shown,
    exchange: () => exchange(names.temp, names.path),
    tempIdentity: () => identityOf(fs.lstatSync(names.tempOpen)),
    targetIdentity: names.statPath,
    openTemp: () => {
      const fd = fs.openSync(names.tempOpen, READ_FLAGS);
      return {
        stat: () => {
          const info = fs.fstatSync(fd);
          return { ...identityOf(info), isFile: info.isFile(), size: info.size };
        },
        read: (buf, offset, length, position) => fs.readSync(fd, buf, offset, length, position),
        close: () => fs.closeSync(fd),
      };
    },
    removeTemp: () => fs.unlinkSync(names.tempOpen),
    keepTemp: () => {
      const kept = names.keptName();
      fs.renameSync(names.tempOpen, kept.open);
      return kept.shown;
    },
  };
}

function same(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

/** Whether the open `file` is a regular file holding exactly `bytes`. */
function holds(file: SwapFile, bytes: Uint8Array): boolean {
  const info = file.stat();
  if (!info.isFile || info.size !== bytes.length) return false;
  const buf = Buffer.alloc(bytes.length + 1); // one byte more: a file that grew shows
  let filled = 0;
  while (filled < buf.length) {
    const n = file.read(buf, filled, buf.length - filled, filled);
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
    private readonly site: SwapSite,
    private readonly file: SwapFile,
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
      if (holds(this.file, this.expect)) {
        this.site.removeTemp();
        return;
      }
      if (same(this.site.targetIdentity(), this.ours.file)) {
        throw changed(this.site, swapBack(this.site, this.ours));
      }
      this.site.keepTemp(); // ours was replaced since: that program's file stays the target
    } finally {
      this.file.close();
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
  site: SwapSite,
  written: Uint8Array,
  expect: Uint8Array,
  base: FileIdentity,
): SwappedOut | null {
  const ours = { file: site.tempIdentity(), bytes: written };
  let swapped: ExchangeResult;
  try {
    swapped = site.exchange();
  } catch (e) {
    // The target went away after the check (moved or deleted by another program).
    if (e instanceof Deno.errors.NotFound) throw changed(site, undefined);
    throw e;
  }
  if (!swapped.done) return null;
  let file: SwapFile;
  try {
    file = site.openTemp();
  } catch (e) {
    swapBack(site, ours);
    throw e;
  }
  let good = false;
  try {
    good = same(file.stat(), base) && holds(file, expect);
  } finally {
    if (!good) file.close();
  }
  if (!good) throw changed(site, swapBack(site, ours));
  return new SwappedOut(site, file, expect, ours);
}

function changed(site: SwapSite, kept: string | undefined): Error {
  return fileChanged(site.shown, { atReplace: true, ...(kept !== undefined && { kept }) });
}

/**
 * Exchanges the names back, so the target is again what another program put there, and removes
 * the new file. If what comes back is not ours (a program replaced our file in the instant it
 * was the target), that file is the newest: it is swapped in again and the other one kept.
 * Returns the kept file's name as shown, if one was kept.
 */
function swapBack(site: SwapSite, ours: Ours): string | undefined {
  try {
    site.exchange();
  } catch {
    // The target is gone since (a program removed it): the file it had stays under a kept name.
    return site.keepTemp();
  }
  if (same(site.tempIdentity(), ours.file)) {
    // A program that wrote into our file while it was the target wrote into one about to go.
    if (!intact(site, ours.bytes)) return site.keepTemp();
    site.removeTemp();
    return undefined;
  }
  site.exchange();
  return site.keepTemp();
}

/** Whether the file under the temp's name still holds exactly `bytes`. */
function intact(site: SwapSite, bytes: Uint8Array): boolean {
  const file = site.openTemp();
  try {
    return holds(file, bytes);
  } finally {
    file.close();
  }
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
