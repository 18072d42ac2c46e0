// Removes the temp files of local writes whose writer is gone (killed mid-write), so a crash
// leaves no litter beyond the next write in that folder. Never touches a live writer's file.

import process from "node:process";
import { TEMP_MAX_AGE_MS, writeTempPid } from "../../core/path/write_temp_name.ts";
import type { PlatformDescription } from "../../core/platform/platform.ts";
import { currentPlatform } from "../platform/current_platform.ts";

/**
 * Whether process `pid` runs on this machine (a zombie counts as dead where /proc shows it).
 * Linux reads /proc; macOS and Windows, which have no /proc, ask with signal 0 (a missing /proc
 * must not read as "every writer is dead": their temp files would be removed mid-write).
 */
export function isProcessAlive(
  pid: number,
  platform: PlatformDescription = currentPlatform(),
): boolean {
  if (pid <= 0) return false;
  if (platform.processTable === "proc") {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      // "pid (comm) S ...": the state follows the last ")" (comm may hold ")").
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return false;
      // unreadable: fall back to signal 0
    }
  }
  try {
    process.kill(pid, 0); // only checks that the pid exists
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"; // exists, owned by another user
  }
}

/** Temp files of local writes in progress in this process (LocalBackend and its confined view). */
export const writesInFlight = new Set<string>();

let tempCounter = 0;

/** The number for the next temp file's name: one counter per process, so no two temps collide. */
export function nextTempNumber(): number {
  return ++tempCounter;
}

/**
 * Removes from `dir` the temp files of writers that are no longer alive: another pid that does
 * not run, our own pid when the file is not one of `ours` (writes in flight), or any pid (and any
 * SFTP writer's, whose pid is another machine's) once the file is older than TEMP_MAX_AGE_MS.
 * Best effort: errors are ignored.
 */
export function removeDeadTemps(
  dir: string,
  ours: ReadonlySet<string>,
  now = Date.now(),
  platform: PlatformDescription = currentPlatform(),
): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  const at = (name: string) => `${dir === "/" ? "" : dir}/${name}`;
  sweepDeadTemps(
    {
      names: entries.filter((e) => e.isFile).map((e) => e.name),
      ours: (name) => ours.has(at(name)),
      mtimeMs: (name) => Deno.lstatSync(at(name)).mtime?.getTime() ?? null,
      remove: (name) => Deno.removeSync(at(name)),
    },
    now,
    platform,
  );
}

/** One folder's temp files as the sweep sees them: by name, whatever reaches the folder. */
interface TempFolder {
  /** The names of the regular files in it. */
  names: readonly string[];
  /** Whether the temp file `name` is a write of this process still in flight. */
  ours(name: string): boolean;
  /** Its modification time (lstat: a symlink's own); throws when it is gone. */
  mtimeMs(name: string): number | null;
  remove(name: string): void;
}

/** removeDeadTemps over any folder access (the confined backend's is a held descriptor). */
export function sweepDeadTemps(
  folder: TempFolder,
  now = Date.now(),
  platform: PlatformDescription = currentPlatform(),
): void {
  for (const name of folder.names) {
    const pid = writeTempPid(name);
    if (pid === null || folder.ours(name)) continue;
    try {
      let dead = pid !== "remote" && (pid === Deno.pid || !isProcessAlive(pid, platform));
      if (!dead) dead = now - (folder.mtimeMs(name) ?? now) > TEMP_MAX_AGE_MS;
      if (dead) folder.remove(name);
    } catch { /* removed meanwhile, or not ours to remove: leave it */ }
  }
}
