// The session's working directory: get, set, reset. Relative paths in every tool resolve
// against it, on whichever machine it is (a remote cwd makes relative paths remote).

import { AnchorError } from "../core/errors.ts";
import { quotePath } from "../core/path/path_quote.ts";
import { type Guide, guide, joinGuide, step } from "../core/next_step.ts";
import type { Locations } from "./location.ts";
import { missingPathError } from "./missing_path.ts";
import type { Session } from "./session.ts";

export type WorkdirAction = "get" | "set" | "reset";

/** Gets, sets or resets the working directory; the result is data like every op's. */
export async function runWorkdir(
  session: Session,
  locations: Locations,
  action: WorkdirAction,
  path?: string,
): Promise<Guide> {
  if (action === "get") return joinGuide(`Working directory: ${quotePath(session.cwd.url)}`);
  if (action === "reset") {
    session.cwd = session.root;
    return joinGuide(`Working directory reset to ${quotePath(session.root.url)}`);
  }
  if (path === undefined || path.trim() === "") {
    throw new AnchorError({
      code: "MISSING_ARGUMENT",
      message: 'workdir "set" needs a path.',
      hint: guide`${
        step("workdir", { action: "set", path: "src" })
      } (relative to the current directory) or an absolute path.`,
    });
  }
  const target = await locations.resolve(path, session.cwd);
  const info = await target.backend.stat(target.path);
  if (!info) throw await missingPathError(locations, target, "directory");
  if (info.type !== "dir") {
    throw new AnchorError({
      code: "NOT_A_DIRECTORY",
      message: `${
        JSON.stringify(target.url)
      } is a file, not a directory; the working directory is unchanged (${session.cwd.url}).`,
      hint: guide`${
        step("workdir", {
          action: "set",
          path: locations.sibling(target, target.backend.paths.parent(target.path)).url,
        })
      } to use its folder.`,
    });
  }
  const previous = session.cwd.url;
  session.cwd = {
    ...target,
    path: await target.backend.realPath(target.path).catch(() => target.path),
  };
  if (!session.cwd.remote) session.cwd.url = session.cwd.path;
  return joinGuide(
    `Working directory set to ${quotePath(session.cwd.url)} (was ${quotePath(previous)}).`,
  );
}
