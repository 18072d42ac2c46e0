// Paths in the forms agents paste them from elsewhere: `src/app.py:623` and `src/app.py:623:5`
// (a compiler's or a stack trace's location), `file:///abs/README.md` (the form MCP roots and
// editors use), a forge's blob URL (`https://github.com/o/r/blob/<ref>/src/x.py#L10-L20`) and
// scp's `host:/path`. Only parsing: whether the plain reading names an existing file is for the
// caller to check (lib/ops/location.ts). Pure.

import { fileUriPath } from "./confinement.ts";

/** A 1-based line (and column) a pasted path points at. */
interface PastedLines {
  start: number;
  end?: number;
  column?: number;
}

type PastedPath =
  /** `file:///abs/x` (or `file://localhost/…`): the absolute path it names. */
  | { kind: "file-uri"; path: string }
  /** `a.py:623` / `a.py:623:5`: a location; the path itself may also be a file so named. */
  | { kind: "line"; path: string; lines: PastedLines }
  /** A forge's web URL of a file: the path inside the repository, and the lines of its anchor. */
  | { kind: "forge"; url: string; forge: string; path: string; lines?: PastedLines }
  /** scp's `host:/path` or `host:~/path` (a host name of two or more characters, no scheme). */
  | { kind: "scp"; host: string; path: string };

/** The pasted form `text` is in, or undefined for a plain path (the usual case). */
export function readPastedPath(text: string): PastedPath | undefined {
  if (/^file:\/\//i.test(text)) {
    const path = fileUriPath(text);
    if (path === undefined) return undefined;
    // file:///C:/x names C:/x on Windows.
    return { kind: "file-uri", path: /^\/[A-Za-z]:[\\/]/.test(path) ? path.slice(1) : path };
  }
  if (/^https?:\/\//i.test(text)) return forgeBlob(text);
  // Any other scheme (ssh://, anchorfs://) is a URL of its own, not scp's host:path.
  if (/^[A-Za-z][\w+.-]*:\/\//.test(text)) return undefined;
  const scp = /^([A-Za-z0-9][\w.-]*[A-Za-z0-9]|[\w.-]+@[\w.-]+):((?:\/|~).*)$/.exec(text);
  if (scp && !/^[A-Za-z]$/.test(scp[1]!)) return { kind: "scp", host: scp[1]!, path: scp[2]! };
  const line = /^(.*?[^:\s]):([1-9][0-9]{0,8})(?::([1-9][0-9]{0,5}))?:?$/.exec(text);
  if (line && !/^[A-Za-z]$/.test(line[1]!)) {
    return {
      kind: "line",
      path: line[1]!,
      lines: {
        start: Number(line[2]),
        ...(line[3] !== undefined && { column: Number(line[3]) }),
      },
    };
  }
  return undefined;
}

/**
 * The file a forge's blob or raw URL names: GitHub `/o/r/blob/<ref>/path` (also `raw.githubusercontent.com/o/r/<ref>/path`),
 * GitLab `/g/p/-/blob/<ref>/path`, Bitbucket `/o/r/src/<ref>/path`, Gitea/Codeberg
 * `/o/r/src/branch/<ref>/path`; a `#L10` / `#L10-L20` / `#lines-10:20` anchor gives lines.
 * A ref with slashes (`feature/x`) cannot be told from the path: the path is read after the
 * first segment, and the caller tries shorter paths too (`forgePathCandidates`).
 */
function forgeBlob(text: string): PastedPath | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const parts = url.pathname.split("/").filter((p) => p !== "").map(safeDecode);
  let rest: string[] | undefined;
  if (url.hostname === "raw.githubusercontent.com" && parts.length > 3) rest = parts.slice(3);
  else {
    const at = parts.findIndex((p, i) =>
      i >= 2 && (p === "blob" || p === "raw" || p === "src" || p === "tree")
    );
    if (at < 0) return undefined;
    const after = parts.slice(at + 1);
    // Gitea: src/branch/<ref>, src/commit/<sha>, src/tag/<tag>.
    const skip = parts[at] === "src" && /^(branch|commit|tag)$/.test(after[0] ?? "") ? 2 : 1;
    rest = after.slice(skip);
  }
  if (!rest || rest.length === 0) return undefined;
  const lines = anchorLines(url.hash);
  return {
    kind: "forge",
    url: text,
    forge: url.hostname,
    path: rest.join("/"),
    ...(lines && { lines }),
  };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** `#L10`, `#L10-L20`, `#L10-20` (GitHub, GitLab), `#lines-10:20` (Bitbucket). */
function anchorLines(hash: string): PastedLines | undefined {
  const m = /^#(?:L|lines-)([1-9][0-9]*)(?:C\d+)?(?:[-:]L?([1-9][0-9]*))?/.exec(hash);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2] === undefined ? undefined : Number(m[2]);
  return end !== undefined && end > start ? { start, end } : { start };
}

/**
 * Paths inside the repository a forge URL may name, longest first: the ref may have held
 * slashes (`blob/feature/x/src/a.py`), so `x/src/a.py` and `src/a.py` are candidates too.
 */
export function forgePathCandidates(path: string): string[] {
  const parts = path.split("/");
  const out: string[] = [];
  for (let i = 0; i < Math.min(parts.length, 4); i++) out.push(parts.slice(i).join("/"));
  return out.filter((p) => p !== "");
}
