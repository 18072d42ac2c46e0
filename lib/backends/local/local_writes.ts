// Local disk, the writing side of LocalBackend: the content check before a write (through one
// descriptor, raw names too), the temp file written beside the target with its owner kept, the
// names of the checked swap, and placing a new file without replacing one.

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { fileChanged, matchesExpected } from "../fs_errors.ts";
import type { WriteOptions } from "../../ops/ports/file_backend.ts";
import { keptCopyName } from "../../core/path/write_temp_name.ts";
import { nextTempNumber } from "./dead_temps.ts";
import { type RawNames } from "./raw_names.ts";
import { type FileIdentity, type SwapNames } from "./checked_swap.ts";
import { hosted, READ_FLAGS, readToEnd } from "./local_reads.ts";

/**
 * Throws FILE_CHANGED unless the file's content is `expect.bytes`. The content is read through
 * one descriptor; a stat just before returning must still show that inode, size and mtime, so a
 * change while the (possibly long) read ran is caught too. Returns the file checked.
 */
export async function checkUnchanged(
  path: string,
  expect: NonNullable<WriteOptions["expect"]>,
): Promise<FileIdentity> {
  let file: fsp.FileHandle;
  try {
    file = await fsp.open(path, READ_FLAGS);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") throw fileChanged(path);
    throw e;
  }
  let read: fs.Stats;
  let bytes: Uint8Array;
  try {
    read = await file.stat();
    // One byte more than expected: a file that grew meanwhile shows.
    bytes = read.size === expect.bytes.length
      ? await readToEnd(file, read.size, read.size)
      : new Uint8Array();
  } finally {
    await file.close();
  }
  if (read.size !== expect.bytes.length || !matchesExpected(bytes, expect)) throw fileChanged(path);
  const now = await Deno.stat(path).catch(() => null);
  if (
    !now || now.ino !== read.ino || now.dev !== read.dev || now.size !== read.size ||
    now.mtime?.getTime() !== read.mtimeMs
  ) throw fileChanged(path);
  return { dev: read.dev, ino: read.ino };
}

/**
 * Puts a new file in place only if nothing is there: a hard link fails atomically when the name
 * exists, so no window at all. Where links are unsupported, a stat and a rename.
 */
export async function placeNew(temp: string, path: string): Promise<void> {
  try {
    await Deno.link(temp, path);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) throw fileChanged(path);
    if (e instanceof Deno.errors.NotFound) throw e;
    // No hard links on this file system (EPERM on FAT, ENOTSUP on some FUSE): stat and rename.
    if (await Deno.lstat(path).then(() => true, () => false)) throw fileChanged(path);
    await Deno.rename(temp, path);
    return;
  }
  await Deno.remove(temp).catch(() => {}); // left over: removed as dead by a later write
}

/** Whether `path` is a regular file with other hard links (then it is written in place). */
export async function hasOtherLinks(path: string): Promise<boolean> {
  const info = await hosted(path, Deno.stat).catch(() => null);
  return info !== null && info.isFile && (info.nlink ?? 1) > 1;
}

/** The owner of the file at `path` (null when there is none or it cannot be told). */
async function ownerOf(path: string): Promise<{ uid: number; gid: number } | null> {
  const info = await hosted(path, Deno.stat).catch(() => null);
  return info?.uid == null || info.gid == null ? null : { uid: info.uid, gid: info.gid };
}

/**
 * Gives the temp file the replaced file's owner: the rename would otherwise hand the file to
 * whoever runs anchorfs (root editing a user's 0640 file locked the user out of it). Before the
 * chmod, which a chown may clear set-id bits for. Best effort: a user other than root can only
 * change the group, to one of its own.
 */
async function keepOwner(temp: string, owner: { uid: number; gid: number } | null): Promise<void> {
  if (owner === null || (owner.uid === Deno.uid() && owner.gid === Deno.gid())) return;
  try {
    await Deno.chown(temp, owner.uid, owner.gid);
  } catch {
    await Deno.chown(temp, null, owner.gid).catch(() => {});
  }
}

/**
 * checkUnchanged for a name that is not UTF-8: the check runs on a fresh fd alias, and the name
 * must still lead to that same inode afterwards (the alias itself cannot see a rename).
 */
export async function checkUnchangedRaw(
  names: RawNames,
  path: string,
  expect: NonNullable<WriteOptions["expect"]>,
): Promise<FileIdentity> {
  let checked: Deno.FileInfo;
  try {
    checked = await names.withAlias(path, async (alias) => {
      await checkUnchanged(alias, expect);
      return await Deno.stat(alias);
    });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw fileChanged(path);
    throw e;
  }
  const now = await names.withAlias(path, Deno.stat).catch(() => null);
  if (
    !now || now.ino !== checked.ino || now.dev !== checked.dev || now.size !== checked.size ||
    now.mtime?.getTime() !== checked.mtime?.getTime()
  ) throw fileChanged(path);
  return { dev: checked.dev, ino: checked.ino ?? 0 };
}

/**
 * Writes the temp file of a write to `path`: `data`, the mode given or the target's, its owner
 * kept (keepOwner), fsynced before anything makes it the file.
 */
export async function writeTemp(
  temp: string,
  data: Uint8Array,
  options: WriteOptions,
  path: string,
): Promise<void> {
  let mode = options.mode;
  if (mode === undefined) {
    const current = await hosted(path, Deno.stat).catch(() => null);
    if (current?.mode != null) mode = current.mode & 0o7777;
  }
  const owner = options.expect === null ? null : await ownerOf(path);
  const file = await Deno.open(temp, { write: true, createNew: true, mode: mode ?? 0o644 });
  try {
    for (let at = 0; at < data.length;) at += await file.write(data.subarray(at));
    await keepOwner(temp, owner);
    if (mode !== undefined) await Deno.chmod(temp, mode); // open's mode is masked by umask
    await file.sync(); // the data is on disk before the rename makes it the file
  } finally {
    file.close();
  }
}

/** The names checked_swap.ts works with for a write of `path` (a UTF-8 name) through `temp`. */
export function swapNames(temp: string, path: string, dir: string, base: string): SwapNames {
  return {
    temp,
    path,
    tempOpen: temp,
    shown: path,
    statPath: () => {
      const info = fs.lstatSync(path, { throwIfNoEntry: false });
      return info ? { dev: info.dev, ino: info.ino } : null;
    },
    keptName: () => {
      const kept = `${dir === "/" ? "" : dir}/${keptCopyName(base, Deno.pid, nextTempNumber())}`;
      return { open: kept, shown: kept };
    },
  };
}

/**
 * swapNames for a name that is not UTF-8: the exchange takes the names by bytes, Deno opens the
 * temp (a UTF-8 name) through the folder's fd alias and stats the target through its own.
 */
export function rawSwapNames(
  names: RawNames,
  at: { temp: string; tempOpen: string; path: string; alias: string; dir: string; base: string },
): SwapNames {
  return {
    temp: at.temp,
    path: at.path,
    tempOpen: at.tempOpen,
    shown: at.path,
    statPath: () => {
      try {
        const info = names.withAliasSync(at.path, Deno.statSync);
        return { dev: info.dev, ino: info.ino ?? 0 };
      } catch {
        return null;
      }
    },
    keptName: () => {
      const name = keptCopyName(at.base, Deno.pid, nextTempNumber());
      return { open: `${at.alias}/${name}`, shown: `${at.dir === "/" ? "" : at.dir}/${name}` };
    },
  };
}
