// Path rules per platform, pure: absolute or not, normal form (drive letters, `\` and `/`, UNC
// shares, `.`/`..`), and a comparison key that folds case where the file system does. Never
// touches the disk: symlinks are the backend's business.

import type { PlatformDescription } from "./platform.ts";

interface SplitPath {
  /** `/`, `C:\`, `\\server\share\`, or "" for a relative path. */
  root: string;
  /** Drive-relative (`C:foo`): the drive only; such a path is not absolute. */
  drive: string;
  segments: string[];
}

const DRIVE = /^([A-Za-z]):/;
const UNC = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)/;

function splitWindows(path: string): SplitPath {
  const unc = UNC.exec(path);
  if (unc && !/^[\\/]{2}[.?][\\/]/.test(path)) {
    return {
      root: `\\\\${unc[1]}\\${unc[2]}\\`,
      drive: "",
      segments: parts(path.slice(unc[0].length)),
    };
  }
  // Device paths (`\\?\C:\x`, `\\.\pipe\x`) keep their prefix as the root.
  const device = /^[\\/]{2}([.?])[\\/]/.exec(path);
  if (device) {
    const rest = path.slice(device[0].length);
    const drive = DRIVE.exec(rest);
    if (device[1] === "?" && drive) {
      return {
        root: `\\\\?\\${drive[1]!.toUpperCase()}:\\`,
        drive: "",
        segments: parts(rest.slice(2)),
      };
    }
    return { root: `\\\\${device[1]}\\`, drive: "", segments: parts(rest) };
  }
  const drive = DRIVE.exec(path);
  if (drive) {
    const letter = `${drive[1]!.toUpperCase()}:`;
    const rest = path.slice(2);
    if (/^[\\/]/.test(rest)) return { root: `${letter}\\`, drive: "", segments: parts(rest) };
    return { root: "", drive: letter, segments: parts(rest) };
  }
  // `\foo` is absolute on the current drive; treat it as rooted without a drive.
  if (/^[\\/]/.test(path)) return { root: "\\", drive: "", segments: parts(path) };
  return { root: "", drive: "", segments: parts(path) };
}

function parts(text: string): string[] {
  return text.split(/[\\/]+/).filter((s) => s !== "");
}

function splitPosix(path: string): SplitPath {
  return {
    root: path.startsWith("/") ? "/" : "",
    drive: "",
    segments: path.split("/").filter((s) => s !== ""),
  };
}

function split(platform: PlatformDescription, path: string): SplitPath {
  return platform.os === "windows" ? splitWindows(path) : splitPosix(path);
}

/**
 * The root of `path` as its normal form writes it: `/`, `C:\`, `\\server\share\`, a bare `\`
 * (rooted on the current drive), the drive of a drive-relative path (`C:`), or "" when relative.
 */
export function pathRoot(platform: PlatformDescription, path: string): string {
  const s = split(platform, path);
  return s.root || s.drive;
}

/** Whether `path` is drive-relative (`C:foo`): relative to a drive's own current directory. */
export function isDriveRelative(platform: PlatformDescription, path: string): boolean {
  return platform.os === "windows" && split(platform, path).drive !== "";
}

/**
 * Whether the path names one place whatever the working directory: `/x` on POSIX; `C:\x`,
 * `C:/x`, `\\server\share\x` on Windows (not `C:x`, not `\x`, which depend on the current drive
 * or directory).
 */
export function isAbsolutePath(platform: PlatformDescription, path: string): boolean {
  if (platform.os !== "windows") return path.startsWith("/");
  const s = splitWindows(path);
  return s.root !== "" && s.root !== "\\";
}

/**
 * The normal form: one separator (the platform's), no `.`, `..` folded where it can be (never
 * above the root), no trailing separator except on a root, the drive letter upper-case.
 *
 * @example
 * ```ts
 * import { describePlatform } from "./platform.ts";
 *
 * normalizePath(describePlatform("windows"), "c:/Users//me/./src/../x"); // "C:\\Users\\me\\x"
 * ```
 */
export function normalizePath(platform: PlatformDescription, path: string): string {
  const s = split(platform, path);
  const out: string[] = [];
  for (const seg of s.segments) {
    if (seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (s.root === "") out.push("..");
      continue;
    }
    out.push(seg);
  }
  const body = out.join(platform.pathSep);
  const prefix = s.root || s.drive;
  if (prefix === "" && body === "") return ".";
  return `${prefix}${body}`;
}

/** A key under which two spellings of one path compare equal (case folded where it should). */
export function pathKey(platform: PlatformDescription, path: string): string {
  const normal = normalizePath(platform, path);
  return platform.caseInsensitive ? normal.toLowerCase() : normal;
}

// Exported for tests.
export function samePath(platform: PlatformDescription, a: string, b: string): boolean {
  return pathKey(platform, a) === pathKey(platform, b);
}

// Exported for tests.
/** Whether `path` is `root` or inside it (by name only; both normalised first). */
export function isInsidePath(platform: PlatformDescription, root: string, path: string): boolean {
  const r = pathKey(platform, root);
  const p = pathKey(platform, path);
  if (p === r) return true;
  const withSep = r.endsWith(platform.pathSep) ? r : `${r}${platform.pathSep}`;
  return p.startsWith(withSep);
}

/** `path` resolved against `base` (an absolute directory), normalised. */
export function resolvePath(platform: PlatformDescription, base: string, path: string): string {
  if (isAbsolutePath(platform, path)) return normalizePath(platform, path);
  if (platform.os === "windows") {
    const s = splitWindows(path);
    const b = splitWindows(base);
    // `\x` takes base's drive or share; `D:x` is relative to D:'s own current directory, which
    // only the process knows: resolve it against D:\.
    if (s.root === "\\") return normalizePath(platform, `${b.root}${path}`);
    if (s.drive !== "") {
      if (b.root.toUpperCase().startsWith(s.drive.toUpperCase())) {
        return normalizePath(platform, `${base}\\${path.slice(2)}`);
      }
      return normalizePath(platform, `${s.drive}\\${path.slice(2)}`);
    }
  }
  return normalizePath(platform, `${base}${platform.pathSep}${path}`);
}
