// How one machine spells paths, as a value each FileBackend carries (`backend.paths`): absolute or
// not, resolving, parent and name, relative display, comparison keys and containment. Pure.
// POSIX_PATHS serves Linux, ssh:// hosts and the memory backend by default; pathRulesFor() builds
// the rules of a local disk from its PlatformDescription (Windows drive letters, `\` and `/`, UNC
// shares; case folded where the file system folds it).

import { AnchorError } from "../errors.ts";
import { describePlatform, type PlatformDescription } from "../platform/platform.ts";
import {
  isAbsolutePath as isAbsoluteOn,
  isDriveRelative,
  normalizePath,
  pathKey,
  pathRoot,
  resolvePath,
} from "../platform/platform_path.ts";
import { fileUriPath, isPathInside } from "./confinement.ts";
import { CaseVolumes } from "./case_volumes.ts";
import { baseName, isAbsolutePath, joinPath, parentPath, relativeTo } from "./path_text.ts";

/** The path rules of one machine's files. Paths given to them are absolute unless said. */
export interface PathRules {
  /** The grammar: POSIX (`/` only) or Windows (drive letters, `\` and `/`, UNC shares). */
  readonly style: "posix" | "windows";
  /** The separator paths are written with. */
  readonly sep: "/" | "\\";
  /**
   * Whether names compare without case by default (APFS and NTFS: yes). Rules built over
   * CaseVolumes decide per directory, from what the backend's probes found (`foldsIn`).
   */
  readonly foldsCase: boolean;
  /** Whether names looked up in the directory `dir` compare without case, as far as known. */
  foldsIn(dir: string): boolean;
  /** Whether `path` names one place whatever the working directory (`/x`, `C:\x`, `\\srv\s\x`). */
  isAbsolute(path: string): boolean;
  /** `path` (absolute or relative) resolved against the absolute directory `base`, normalised. */
  resolve(base: string, path: string): string;
  /** An absolute path in normal form (one separator, no `.` or `..`, no trailing separator). */
  normalize(path: string): string;
  /** The directory holding `path`; a root is its own parent. */
  parent(path: string): string;
  /** The last component of `path`; "" for a root. */
  baseName(path: string): string;
  /** `dir` plus a relative path written with `/` (a name, or a walk's `a/b`); no normalising. */
  join(dir: string, rel: string): string;
  /** `path` relative to `root` ("." when it is `root`), or `path` itself when it is outside. */
  relativeTo(root: string, path: string): string;
  /** The part of `path` below `dir`, or undefined when `path` is `dir` or not inside it. */
  below(dir: string, path: string): string | undefined;
  /** A key under which two spellings of one path compare equal (case folded where it should). */
  key(path: string): string;
  /** Whether `path` is `dir` or inside it: whole components, case folded where it should. */
  isInside(path: string, dir: string): boolean;
  /** A relative path written with `/` (a walk's), as this machine writes it: to show it. */
  show(rel: string): string;
  /** `path` with `/` separators: ignore rules and globs match those. */
  slashed(path: string): string;
  /** The path of a `file://` URI (a client's root) on this machine, or undefined. */
  fromFileUri(uri: string): string | undefined;
  /** Why `path` cannot be placed without state anchorfs does not keep (`C:foo`), or undefined. */
  refusal(path: string): AnchorError | undefined;
}

const same = (text: string) => text;

/** POSIX paths, compared byte for byte: Linux, every ssh:// host, the memory backend's default. */
export const POSIX_PATHS: PathRules = {
  style: "posix",
  sep: "/",
  foldsCase: false,
  foldsIn: () => false,
  isAbsolute: isAbsolutePath,
  resolve: joinPath,
  normalize: (path) => joinPath("/", path),
  parent: parentPath,
  baseName,
  join: (dir, rel) => dir === "/" ? `/${rel}` : `${dir}/${rel}`,
  relativeTo,
  below(dir, path) {
    const base = dir.endsWith("/") ? dir : `${dir}/`;
    return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : undefined;
  },
  key: same,
  isInside: isPathInside,
  show: same,
  slashed: same,
  fromFileUri(uri) {
    const path = fileUriPath(uri);
    return path !== undefined && path.startsWith("/") ? joinPath("/", path) : undefined;
  },
  refusal: () => undefined,
};

/**
 * The path rules of a local disk on `platform`. With `volumes`, names compare with or without case
 * per directory, as the backend's probes of the file system found (the platform's default where
 * nothing was probed); without, by the platform's default everywhere.
 */
export function pathRulesFor(platform: PlatformDescription, volumes?: CaseVolumes): PathRules {
  if (volumes) {
    const posix = platform.os !== "windows" && !platform.caseInsensitive;
    return posix ? posixPathsOn(volumes) : componentRules(platform, volumes);
  }
  if (platform.os === "windows") return WINDOWS_PATHS;
  return platform.caseInsensitive ? MACOS_PATHS : POSIX_PATHS;
}

/**
 * POSIX paths whose comparisons follow `volumes` (an ssh:// host, a Linux disk): the byte-for-byte
 * POSIX_PATHS while no probe found a folding directory, component keys from then on.
 */
export function posixPathsOn(volumes: CaseVolumes): PathRules {
  const folded = componentRules(volumes.platform, volumes);
  const pick = () => volumes.uniform && !volumes.fallback ? POSIX_PATHS : folded;
  return {
    ...POSIX_PATHS,
    foldsCase: volumes.fallback,
    foldsIn: (dir) => volumes.foldsIn(dir),
    relativeTo: (root, path) => pick().relativeTo(root, path),
    below: (dir, path) => pick().below(dir, path),
    key: (path) => pick().key(path),
    isInside: (path, dir) => pick().isInside(path, dir),
  };
}

/**
 * Rules from platform_path.ts, comparing whole components (case folded when the platform says
 * so): Windows, and POSIX on a case-insensitive disk (macOS).
 */
function componentRules(platform: PlatformDescription, volumes?: CaseVolumes): PathRules {
  const windows = platform.os === "windows";
  const sep = platform.pathSep;
  const fold = platform.caseInsensitive ? (s: string) => s.toLowerCase() : same;
  /** The root and components of a path as comparisons see them. */
  const keyParts = (root: string, segments: string[], normal: string) =>
    volumes && !volumes.uniform ? volumes.keyParts(normal) : [fold(root), ...segments.map(fold)];
  const normalize = (path: string) => normalizePath(platform, path);
  const split = (path: string) => {
    const normal = normalize(path);
    const root = pathRoot(platform, normal);
    const segments = normal.slice(root.length).split(sep).filter((s) => s !== "");
    return { normal, root, segments };
  };
  /** The components of `path` below `dir`; undefined when it is not inside. */
  const tail = (dir: string, path: string): string[] | undefined => {
    const d = split(dir);
    const p = split(path);
    if (p.segments.length < d.segments.length) return undefined;
    const dk = keyParts(d.root, d.segments, d.normal);
    const pk = keyParts(p.root, p.segments, p.normal);
    for (let i = 0; i < dk.length; i++) if (dk[i] !== pk[i]) return undefined;
    return p.segments.slice(d.segments.length);
  };
  const toNative = windows ? (rel: string) => rel.replaceAll("/", "\\") : same;
  return {
    style: windows ? "windows" : "posix",
    sep,
    foldsCase: platform.caseInsensitive,
    foldsIn: (dir) => volumes?.foldsIn(dir) ?? platform.caseInsensitive,
    isAbsolute: (path) => isAbsoluteOn(platform, path),
    resolve: (base, path) => resolvePath(platform, base, path),
    normalize,
    parent(path) {
      const { normal, root, segments } = split(path);
      if (segments.length === 0) return normal;
      if (segments.length === 1) return root === "" ? "." : root;
      return normal.slice(0, normal.lastIndexOf(sep));
    },
    baseName: (path) => split(path).segments.at(-1) ?? "",
    join: (dir, rel) => `${dir.endsWith(sep) ? dir : `${dir}${sep}`}${toNative(rel)}`,
    relativeTo(root, path) {
      const rest = tail(root, path);
      return rest === undefined ? path : rest.length === 0 ? "." : rest.join(sep);
    },
    below(dir, path) {
      const rest = tail(dir, path);
      return rest === undefined || rest.length === 0 ? undefined : rest.join(sep);
    },
    key: (path) => volumes && !volumes.uniform ? volumes.key(path) : pathKey(platform, path),
    isInside: (path, dir) => tail(dir, path) !== undefined,
    show: toNative,
    slashed: windows ? (path) => path.replaceAll("\\", "/") : same,
    fromFileUri(uri) {
      const path = windows ? windowsFileUriPath(uri) : fileUriPath(uri);
      return path !== undefined && isAbsoluteOn(platform, path) ? normalize(path) : undefined;
    },
    refusal: (path) => isDriveRelative(platform, path) ? driveRelativeError(path) : undefined,
  };
}

/**
 * `file:///C:/x` and `file:///c%3A/x` (as editors send them) → `C:/x`. Undefined for other
 * schemes, other hosts (`file://server/share/x`) and for what does not parse.
 */
function windowsFileUriPath(uri: string): string | undefined {
  let url: URL;
  let path: string;
  try {
    url = new URL(uri);
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (url.protocol !== "file:") return undefined;
  // A share on another host (`file://server/share`, `file:////server/share`) is not local: a
  // root there would send every confined read over the network to a machine the user may not
  // control, so it is refused like any non-local root.
  if (url.hostname !== "" && url.hostname !== "localhost") return undefined;
  if (path.startsWith("//") || /^file:\/{4}/i.test(uri.trim())) return undefined;
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1) : path;
}

function driveRelativeError(path: string): AnchorError {
  const drive = path.slice(0, 2).toUpperCase();
  const rest = path.slice(2);
  return new AnchorError({
    code: "INVALID_PATH",
    message: `${JSON.stringify(path)} is relative to the current directory of drive ${drive}, ` +
      "which anchorfs does not keep (it has one working directory); nothing was read or written.",
    hint: `Write the path from the drive's root, e.g. ${JSON.stringify(`${drive}\\${rest}`)}` +
      (rest === "" ? "." : `, or relative to the working directory: ${JSON.stringify(rest)}.`),
  });
}

/** Windows disks: drive letters, `\` and `/`, UNC shares, case folded. */
export const WINDOWS_PATHS: PathRules = componentRules(describePlatform("windows"));

/** macOS disks: POSIX paths on a case-insensitive file system (APFS's default). */
export const MACOS_PATHS: PathRules = componentRules(describePlatform("darwin"));
