// What probes of a file system found out about case: per directory, whether names looked up in it
// compare without case, and the comparison keys that follow from it. Pure: the probing itself
// (a stat of a name and of its case-swapped spelling) is I/O and lives in lib/backends.

import type { PlatformDescription } from "../platform/platform.ts";
import { normalizePath, pathRoot } from "../platform/platform_path.ts";

/** One directory the probes know (or passed through on the way to one). */
interface Node {
  /** The name as recorded (its spelling when first seen). */
  name: string;
  /** Whether lookups in this directory fold case; undefined: as its parent's (not known). */
  folds: boolean | undefined;
  /** Set once this directory itself was probed (even when the probe could not decide). */
  probed: boolean;
  children: Node[];
}

const lower = (text: string) => text.toLowerCase();

/**
 * The case behaviour of one backend's directories as probes found it. A directory's answer holds
 * for everything below it until a deeper probed directory says otherwise (a vfat stick mounted
 * under a case-sensitive `/`, an ext4 `+F` folder, a case-sensitive APFS volume under a folding
 * `/`); where nothing was probed, the platform's default applies. Keys stay stable as long as
 * every directory on a path is probed before the path is compared (lib/backends probe the
 * directory of each path and all of its ancestors at once).
 *
 * @example
 * ```ts
 * import { describePlatform } from "../platform/platform.ts";
 *
 * const volumes = new CaseVolumes(describePlatform("linux"));
 * volumes.record("/mnt/usb", true);
 * volumes.key("/mnt/usb/Notes.TXT"); // "/mnt/usb/notes.txt"
 * volumes.key("/home/Notes.TXT"); // "/home/Notes.TXT"
 * ```
 */
export class CaseVolumes {
  private readonly roots: Node[] = [];
  /** Recorded answers that differ from the platform's default: none → keys as without probes. */
  private disagreements = 0;

  constructor(readonly platform: PlatformDescription) {}

  /** The platform's default: what applies where no probe said otherwise. */
  get fallback(): boolean {
    return this.platform.caseInsensitive;
  }

  /** True while every recorded answer equals the default (the common case: nothing to fold). */
  get uniform(): boolean {
    return this.disagreements === 0;
  }

  /** Records what a probe of the absolute directory `dir` found (undefined: it could not tell). */
  record(dir: string, folds: boolean | undefined): void {
    const node = this.walk(dir, true).node!;
    if (node.probed) return;
    node.probed = true;
    node.folds = folds;
    if (folds !== undefined && folds !== this.fallback) this.disagreements++;
  }

  /** Whether `dir` itself was probed already. */
  probed(dir: string): boolean {
    return this.walk(dir, false).node?.probed === true;
  }

  /** Whether names looked up in the directory `dir` compare without case, as far as known. */
  foldsIn(dir: string): boolean {
    return this.walk(dir, false).folds;
  }

  /** The root and the comparison form of each component of `path`, for prefix comparisons. */
  keyParts(path: string): string[] {
    return this.walk(path, false).parts;
  }

  /** A key under which two spellings of one path compare equal on these volumes. */
  key(path: string): string {
    const [root, ...rest] = this.keyParts(path);
    return `${root}${rest.join(this.platform.pathSep)}`;
  }

  /**
   * Follows `path` down the recorded tree: each component is compared (and keyed) by the answer
   * of the directory it is looked up in. With `create`, missing nodes are added on the way.
   */
  private walk(path: string, create: boolean): { node?: Node; folds: boolean; parts: string[] } {
    const normal = normalizePath(this.platform, path);
    const root = pathRoot(this.platform, normal);
    const windows = this.platform.os === "windows";
    // Drive letters and server names never compare with case; `/` has none.
    const rootKey = windows ? lower(root) : root;
    const parts = [rootKey];
    let node: Node | undefined = this.child(this.roots, rootKey, windows, create);
    let folds = node?.folds ?? this.fallback;
    const segments = normal.slice(root.length).split(this.platform.pathSep).filter((s) => s !== "");
    for (const segment of segments) {
      parts.push(folds ? lower(segment) : segment);
      node = node ? this.child(node.children, segment, folds, create) : undefined;
      if (node?.folds !== undefined) folds = node.folds;
    }
    return node ? { node, folds, parts } : { folds, parts };
  }

  private child(list: Node[], name: string, folds: boolean, create: boolean): Node | undefined {
    const key = folds ? lower(name) : name;
    const found = list.find((n) => (folds ? lower(n.name) : n.name) === key);
    if (found || !create) return found;
    const node: Node = { name, folds: undefined, probed: false, children: [] };
    list.push(node);
    return node;
  }
}

/**
 * `name` with the case of each letter swapped (`Read.me` → `rEAD.ME`), for a probe that looks the
 * other spelling up; undefined when no letter has two cases (`123`, `_`) or when a swap would
 * change the length (`ß` → `SS`), which would not be the same name folded.
 */
export function caseSwapped(name: string): string | undefined {
  let out = "";
  for (const char of name) {
    const up = char.toUpperCase();
    const down = char.toLowerCase();
    const swapped = char === up ? down : up;
    out += swapped.length === char.length ? swapped : char;
  }
  return out === name ? undefined : out;
}
