// The pure part of confinement (`anchorfs mcp --allow DIR`, `--roots`): is a real path inside one
// of the allowed directories, and the intersection of two allowed sets. No I/O: resolving
// symlinks happens in lib/ops/confinement.ts, which calls these with real paths only.

/** One directory the file tools may use: a tree on one backend, by its real (resolved) path. */
export interface AllowedDir {
  /** The backend's id ("local", "ssh://user@host:22"); the same tree on another host is not it. */
  backendId: string;
  /** Absolute real path: symlinks resolved, no trailing slash (except "/"). */
  path: string;
  /** How to show it: the plain path locally, ssh://host/path remotely. */
  url: string;
  /**
   * The absolute path it was allowed by, when that differs from `path` (named through a
   * symlink): paths written under it are placed in this directory by their text.
   */
  named?: string;
  /**
   * The backend's path rules (a PathRules), which decide what is inside (case folded on Windows and macOS);
   * POSIX byte comparison when omitted.
   */
  paths?: {
    isInside(path: string, dir: string): boolean;
    key(path: string): string;
  };
}

/** `path` is `dir.path` or below it, by the rules of `dir`'s backend. */
function holds(dir: AllowedDir, path: string): boolean {
  return dir.paths ? dir.paths.isInside(path, dir.path) : isPathInside(path, dir.path);
}

/**
 * True when `path` is `dir` or below it. Both must be absolute and normalized. A plain prefix test
 * is wrong: "/a/bc" starts with "/a/b" but is not inside it.
 */
export function isPathInside(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  const base = dir.endsWith("/") ? dir.slice(0, -1) : dir;
  return path === base || path.startsWith(`${base}/`);
}

/** The allowed directory that holds `realPath` on `backendId`, or undefined. */
export function allowingDir(
  allowed: readonly AllowedDir[],
  backendId: string,
  realPath: string,
): AllowedDir | undefined {
  return allowed.find((a) => a.backendId === backendId && holds(a, realPath));
}

/**
 * Paths inside both sets (e.g. the client's roots and --allow): for each pair on one backend, the
 * deeper directory when one holds the other; disjoint pairs give nothing.
 */
export function intersectAllowed(
  a: readonly AllowedDir[],
  b: readonly AllowedDir[],
): AllowedDir[] {
  const out: AllowedDir[] = [];
  const key = (dir: AllowedDir) => dir.paths ? dir.paths.key(dir.path) : dir.path;
  const add = (dir: AllowedDir) => {
    if (!out.some((o) => o.backendId === dir.backendId && key(o) === key(dir))) out.push(dir);
  };
  for (const x of a) {
    for (const y of b) {
      if (x.backendId !== y.backendId) continue;
      if (holds(y, x.path)) add(x);
      else if (holds(x, y.path)) add(y);
    }
  }
  return out;
}

/**
 * The local path of a `file://` root URI (`file:///home/me/a%20b` → "/home/me/a b"), or
 * undefined for other schemes and for file URIs naming another host.
 */
export function fileUriPath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "file:" || (url.hostname !== "" && url.hostname !== "localhost")) {
    return undefined;
  }
  // `file:////host/share` (an empty authority, then a UNC path) names another host too; URL
  // parsing drops the extra slashes, so the text is checked.
  if (/^file:\/{4}/i.test(uri.trim())) return undefined;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
}

/** The allowed directories as a short list for messages: `"/a", "ssh://box/srv"`. */
export function describeAllowed(allowed: readonly AllowedDir[]): string {
  return allowed.length === 0 ? "none" : allowed.map((a) => JSON.stringify(a.url)).join(", ");
}
