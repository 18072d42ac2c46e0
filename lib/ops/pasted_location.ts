// Where a path pasted in another form points (lib/core/path/pasted_path.ts), for Locations: a
// `file://` URI is its absolute path; `a.py:623` is line 623 of a.py when no file is named
// `a.py:623`; a forge's blob URL is the workspace file with that path (the result says which);
// scp's `host:/path` is refused with the ssh:// URL that names it. Asked only when the plain
// reading names nothing (a file may really be called `a:1`).

import { AnchorError } from "../core/errors.ts";
import { guide, step } from "../core/next_step.ts";
import { forgePathCandidates, readPastedPath } from "../core/path/pasted_path.ts";
import type { Location, Locations } from "./location.ts";
import type { PathGuard } from "./ports/path_guard.ts";

/** Parent directories of the working directory tried for a forge URL's path (a checkout root). */
const FORGE_ANCESTORS = 6;

/** The location a pasted form names, or undefined when `text` is a plain path. */
export async function placePasted(
  locations: Locations,
  text: string,
  cwd: Location,
  guard: PathGuard | undefined,
): Promise<Location | undefined> {
  const form = readPastedPath(text);
  if (!form) return undefined;
  const plain = () => locations.place(text, cwd, guard, false);
  switch (form.kind) {
    case "file-uri": {
      const at = await locations.place(form.path, cwd, guard, false);
      return {
        ...at,
        pasted: { note: `${JSON.stringify(text)} read as ${JSON.stringify(at.url)}` },
      };
    }
    case "line": {
      const literal = await plain();
      if (await exists(literal)) return undefined;
      const file = await locations.place(form.path, cwd, guard, false);
      if ((await statOf(file))?.type !== "file") return undefined;
      const { start, column } = form.lines;
      return {
        ...file,
        pasted: {
          note: `${JSON.stringify(text)} read as line ${start}${
            column === undefined ? "" : `, column ${column}`
          } of ${JSON.stringify(form.path)}`,
          lines: form.lines,
        },
      };
    }
    case "forge":
      return await forgeFile(locations, form, cwd);
    case "scp": {
      if (await exists(await plain())) return undefined;
      throw scpPathError(text, form.host, form.path);
    }
  }
}

async function statOf(location: Location) {
  return await location.backend.stat(location.path).catch(() => null);
}

async function exists(location: Location): Promise<boolean> {
  return (await statOf(location)) !== null;
}

/**
 * The workspace file a forge URL names: its path under the working directory or one of its
 * parents (a checkout of that repository), longest candidate first. Refused when none exists.
 */
async function forgeFile(
  locations: Locations,
  form: { url: string; forge: string; path: string; lines?: { start: number; end?: number } },
  cwd: Location,
): Promise<Location> {
  const rules = cwd.backend.paths;
  const candidates = forgePathCandidates(form.path);
  let dir = cwd.path;
  for (let up = 0; up <= FORGE_ANCESTORS; up++) {
    for (const candidate of candidates) {
      const at = locations.sibling(cwd, rules.resolve(dir, candidate));
      if ((await statOf(at))?.type !== "file") continue;
      return {
        ...at,
        pasted: {
          note: `the ${form.forge} URL maps to the local file ${JSON.stringify(at.url)}${
            form.lines ? ` (its #L${form.lines.start} anchor: line ${form.lines.start})` : ""
          }; anchorfs reads the workspace, not the web page`,
          ...(form.lines && { lines: form.lines }),
        },
      };
    }
    const parent = rules.parent(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const name = form.path.slice(form.path.lastIndexOf("/") + 1);
  throw new AnchorError({
    code: "NOT_FOUND",
    message: `${JSON.stringify(form.url)} is a ${form.forge} web page, which anchorfs does not ` +
      `fetch; no file ${
        JSON.stringify(form.path)
      } (the path it names in the repository) is under ` +
      `${JSON.stringify(cwd.url)} or its parents.`,
    hint: guide`Find the workspace's copy by name: ${
      step("view", { path: ".", pattern: `**/${name}` })
    }; to read the web page, use the shell (curl).`,
  });
}

/** `devbox:/srv/x`: scp's form, which anchorfs writes `ssh://devbox/srv/x`. */
function scpPathError(text: string, host: string, path: string): AnchorError {
  const url = `ssh://${host}${path.startsWith("/") ? "" : "/"}${path}`;
  return new AnchorError({
    code: "NOT_FOUND",
    message: `${JSON.stringify(text)} looks like scp's host:path form, and no local file has ` +
      `that name; anchorfs names a file on an ssh host ${JSON.stringify(url)}.`,
    hint: guide`${step("view", { path: url })}`,
  });
}
