// Writing a file that has other hard links: into its own inode, so every name sees the edit (a
// rename would give only this name a new file and leave the others with the old content). The old
// content waits in a recovery copy beside it until the new content is verified. Not atomic for
// readers; a writer killed mid-way leaves the copy, and the next write of the file reports it.

import { AnchorError } from "../../core/errors.ts";
import { fnv1a32 } from "../../core/edit/line_id.ts";
import { guide, step } from "../../core/next_step.ts";
import {
  recoveryCopyName,
  recoveryCopyOf,
  writeTempName,
} from "../../core/path/write_temp_name.ts";
import { shellQuote } from "../../core/shell/shell_quote.ts";
import { fileChanged, lockTimeout, matchesExpected } from "../fs_errors.ts";

/** The file written in place, as paths Deno can open (fd aliases for names that are not UTF-8). */
interface InPlaceTarget {
  /** Opens the target itself. */
  open: string;
  /** Opens its folder (the recovery copy is made there). */
  dir: string;
  /** The target's name as the recovery copy's name carries it. */
  base: string;
  /** The target's path as named, for messages. */
  shown: string;
  /** Its folder as named, for messages. */
  shownDir: string;
  /**
   * The inode the name has now, when `open` cannot tell (a /proc/self/fd alias of the file itself,
   * as the confined backend passes, always reaches the inode it was opened on).
   */
  inoNow?: () => number;
}

let copyCounter = 0;

/** Recovery copies this process has in flight (its own, never reported as left behind). */
const copiesInFlight = new Set<string>();

/** How long a write in place waits for another writer of the same inode (as write_lock.ts). */
const INODE_WAIT_MS = 30_000;

/**
 * Writes `data` into the target's inode. Under an flock of the inode itself (writers through
 * other names hold other path locks, so the path lock alone would let two of them interleave),
 * `prepare` runs the checks and returns the old content; that goes to a recovery copy first
 * (whole and fsynced before it gets its name; 0600), then the file is compared once more, cut to
 * the new length and overwritten from the start, fsynced and read back. On any failure the old content is written
 * back and the copy removed; if even that fails the copy stays and the error names it.
 */
export async function writeInPlace(
  target: InPlaceTarget,
  data: Uint8Array,
  mode: number | undefined,
  inFlight: Set<string>,
  prepare: () => Promise<Uint8Array>,
): Promise<void> {
  // Opened first: a file this user may not write fails here, before anything was touched.
  const file = await Deno.open(target.open, { write: true });
  try {
    await lockInode(file, target.shown);
    const original = await prepare();
    const ino = (await file.stat()).ino ?? 0;
    // Another program may have renamed a new file over the name since the open: the checks
    // read that one, so the inode held here would get an edit based on other content.
    if (inoAtName(target) !== ino) throw fileChanged(target.shown);
    const written = { size: data.length, fingerprint: fnv1a32(data) };
    const name = recoveryCopyName(target.base, ++copyCounter, { pid: Deno.pid, ino, written });
    const copy = `${target.dir}/${name}`;
    copiesInFlight.add(copy);
    try {
      await writeCopy(target, copy, original, inFlight);
      try {
        refuseOutsideChange(target, ino, original);
      } catch (e) {
        await Deno.remove(copy).catch(() => {});
        throw e;
      }
      try {
        overwriteSync(file, data); // at once: no await since the last comparison
        const after = file.statSync(); // before the fsync, which may take a while
        await file.sync();
        if (mode !== undefined) await Deno.chmod(target.open, mode);
        verifyWritten(target, data, after, mode !== undefined);
      } catch (e) {
        try {
          await overwrite(file, original);
        } catch {
          throw interruptedWrite(target, `${target.shownDir}/${name}`, Deno.pid, e);
        }
        await Deno.remove(copy).catch(() => {});
        throw e;
      }
      await Deno.remove(copy);
      await syncDir(target.dir);
    } finally {
      copiesInFlight.delete(copy);
    }
  } finally {
    file.close(); // also releases the flock
  }
}

/**
 * The last look before the overwrite, which is not atomic and so cannot be taken back: the file
 * must still be `ino` holding `original`. Writing the recovery copy took a while (an fsync), and
 * another program's write in that time would otherwise be overwritten (a rename-save over the
 * name too: the edit would go to the other names only). Synchronous, so the
 * overwrite's first write follows at once; throws FILE_CHANGED (the caller removes the copy).
 */
function refuseOutsideChange(target: InPlaceTarget, ino: number, original: Uint8Array): void {
  if (inoAtName(target) !== ino) throw fileChanged(target.shown); // a rename-save over the name
  if (!matchesExpected(Deno.readFileSync(target.open), { bytes: original })) {
    throw fileChanged(target.shown);
  }
}

/**
 * The inode the target's name leads to now. A /proc/self/fd alias of the file (the confined
 * backend's `open`) always reaches the inode it was opened on, whatever is at the name since:
 * there `inoNow` looks at the name itself.
 */
function inoAtName(target: InPlaceTarget): number | null {
  return target.inoNow ? target.inoNow() : Deno.statSync(target.open).ino;
}

/** An exclusive flock of the open file, waited for a bounded time (then LOCK_TIMEOUT). */
async function lockInode(file: Deno.FsFile, shown: string): Promise<void> {
  const started = Date.now();
  let pause = 2;
  while (!(await file.tryLock(true))) {
    const waited = Date.now() - started;
    if (waited >= INODE_WAIT_MS) throw lockTimeout(shown, waited, "an flock of the file itself");
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 50);
  }
}

/**
 * Before a write in place, holding the inode's flock: every writer of the inode holds it while
 * its copy exists, so a recovery copy of this inode (under any name in the folder) that is not
 * ours is one a write left behind: its process was stopped, or could not put the old content
 * back. If the file still equals the copy (the overwrite had not started, or was undone), the
 * copy is removed; otherwise the file may be half written and the write is refused with
 * INTERRUPTED_WRITE, naming the copy and the commands that settle it. A copy beside exactly the
 * content its write was putting there is removed too: that write finished.
 */
export async function refuseInterruptedWrite(target: InPlaceTarget): Promise<void> {
  let entries: Deno.DirEntry[];
  let ino: number | null;
  try {
    entries = [...Deno.readDirSync(target.dir)];
    ino = (await Deno.stat(target.open)).ino;
  } catch {
    return;
  }
  for (const entry of entries) {
    const of = recoveryCopyOf(entry.name);
    if (!entry.isFile || of === null || of.ino !== ino) continue;
    const copy = `${target.dir}/${entry.name}`;
    if (copiesInFlight.has(copy)) continue;
    const kept = await Deno.readFile(copy).catch(() => null);
    if (kept === null) continue;
    const now = await Deno.readFile(target.open).catch(() => null);
    // Still the old content (the overwrite had not begun, or was undone), or exactly what that
    // write was putting there (it finished; only the copy's removal was cut off): nothing torn.
    const finished = now !== null && now.length === of.written.size &&
      fnv1a32(now) === of.written.fingerprint;
    if (now !== null && (finished || matchesExpected(now, { bytes: kept }))) {
      await Deno.remove(copy).catch(() => {});
      continue;
    }
    throw interruptedWrite(target, `${target.shownDir}/${entry.name}`, of.pid);
  }
}

// Exported for tests.
/**
 * INTERRUPTED_WRITE: the file may be half written; the hint's shell calls put the kept content
 * back or drop the copy. Exported for the test that runs every shell call a hint suggests.
 */
export function interruptedWrite(
  target: InPlaceTarget,
  copy: string,
  pid: number,
  cause?: unknown,
): AnchorError {
  const why = cause === undefined
    ? `a write in place by anchorfs process ${pid} did not finish`
    : `writing it in place failed (${(cause as Error)?.message ?? String(cause)}) and so did ` +
      "putting the old content back";
  const file = shellQuote(target.shown);
  const kept = shellQuote(copy);
  return new AnchorError({
    code: "INTERRUPTED_WRITE",
    message: `${JSON.stringify(target.shown)} may be half written: ${why}. It has other hard ` +
      "links, so it is written in place rather than replaced, and its content from before that " +
      `write is kept in ${JSON.stringify(copy)}. Nothing was written now.`,
    hint: guide`To put that content back (cp writes into the file, so every link gets it): ${
      step("shell", { command: `cp -- ${kept} ${file} && rm -- ${kept}` })
    }; to keep the file as it is now: ${
      step("shell", { command: `rm -- ${kept}` })
    }. Then view the file and retry the edit.`,
    fault: "environment",
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The recovery copy: written under a temp name (swept as a dead writer's if this process dies
 * meanwhile), fsynced, then renamed to `copy`; so a copy under its own name is always whole.
 */
async function writeCopy(
  target: InPlaceTarget,
  copy: string,
  bytes: Uint8Array,
  inFlight: Set<string>,
): Promise<void> {
  const temp = `${target.dir}/${writeTempName(target.base, Deno.pid, ++copyCounter)}`;
  inFlight.add(temp);
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    try {
      for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temp, copy);
  } catch (e) {
    await Deno.remove(temp).catch(() => {});
    throw e;
  } finally {
    inFlight.delete(temp);
  }
  await syncDir(target.dir); // the copy's name survives a power cut before the overwrite starts
}

/**
 * Cuts the open file to the length of `bytes`, then writes them from its start. Cut first: a
 * program appending meanwhile appends after the new end, and keeps its bytes.
 */
function overwriteSync(file: Deno.FsFile, bytes: Uint8Array): void {
  file.truncateSync(bytes.length);
  file.seekSync(0, Deno.SeekMode.Start);
  for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
}

// Exported for tests.
/**
 * Reads the file back. Not `data`: fine when another program wrote after ours (what we wrote
 * followed by more, or the file's size or times moved since `after`, taken right after our
 * write; `chmodded`: our own chmod moved its ctime): that write stays, it must not be undone with
 * the old content. Otherwise our write did not land.
 */
export function verifyWritten(
  target: InPlaceTarget,
  data: Uint8Array,
  after: Deno.FileInfo,
  chmodded = false,
): void {
  const back = Deno.readFileSync(target.open);
  if (matchesExpected(back, { bytes: data })) return;
  if (
    back.length > data.length && matchesExpected(back.subarray(0, data.length), { bytes: data })
  ) {
    return;
  }
  const now = Deno.statSync(target.open);
  const moved = now.size !== after.size || now.mtime?.getTime() !== after.mtime?.getTime() ||
    (!chmodded && now.ctime?.getTime() !== after.ctime?.getTime());
  if (!moved) throw new Error("the file read back differs from what was written");
}

/** Writes `bytes` over the open file from its start, cuts it to their length and fsyncs it. */
async function overwrite(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  await file.seek(0, Deno.SeekMode.Start);
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
  await file.truncate(bytes.length);
  await file.sync();
}

/** fsync of a folder after names in it changed; best effort (some file systems refuse it). */
export async function syncDir(dir: string): Promise<void> {
  let handle: Deno.FsFile | undefined;
  try {
    handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    /* the data itself is synced; only the names' durability is left to the OS */
  } finally {
    handle?.close();
  }
}
