// The session's working directory: get, set, reset. Relative paths in every tool resolve
// against it, on whichever machine it is (a remote cwd makes relative paths remote).

import { AnchorError } from "../core/errors.ts";
import { quotePath, quotePathAlways } from "../core/path/path_quote.ts";
import { type Guide, guide, joinGuide, step } from "../core/next_step.ts";
import type { Location, Locations } from "./location.ts";
import { missingPathError, nearestExistingParentUrl } from "./missing_path.ts";
import type { Session } from "./session.ts";

type WorkdirAction = "get" | "set" | "reset";

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

/**
 * Refuses a write that would re-create the working directory: it was removed or renamed since it
 * was set (a `git checkout`, an `rm -rf`), and a new file named relative to it would bring it
 * back with that one file in it, hiding that the project moved. An absolute path is left alone
 * (create makes the folders it needs, as always): that names the place on purpose.
 */
export async function refuseGoneWorkdir(
  locations: Locations,
  session: Session,
  target: Location,
  raw: string,
): Promise<void> {
  const cwd = session.cwd;
  const relative = !raw.startsWith("~") && !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) &&
    !cwd.backend.paths.isAbsolute(raw);
  if (!relative || target.backend !== cwd.backend) return;
  if (!cwd.backend.paths.isInside(target.path, cwd.path)) return;
  const info = await cwd.backend.stat(cwd.path).catch(() => null);
  if (info?.type === "dir") return;
  const rootThere = session.root.path !== cwd.path &&
    (await session.root.backend.stat(session.root.path).catch(() => null))?.type === "dir";
  const parent = rootThere ? null : await nearestExistingParentUrl(locations, cwd);
  const move = rootThere
    ? guide`${step("workdir", { action: "reset" })} returns to ${quotePath(session.root.url)}`
    : parent === null
    ? guide`${step("workdir", { action: "set", path: "/" })} moves to an existing directory`
    : guide`${
      step("workdir", { action: "set", path: parent })
    } moves to its nearest existing parent`;
  throw new AnchorError({
    code: "WORKDIR_GONE",
    message: `The working directory ${quotePathAlways(cwd.url)} no longer exists (removed or ` +
      `renamed since it was set), so writing ${quotePathAlways(target.url)} would re-create it; ` +
      "nothing was written.",
    hint: guide`${move}; to re-create it on purpose, name the file by its absolute path, e.g. ${
      step("text_editor", { command: "create", path: target.url, file_text: "line one\n" })
    }.`,
  });
}
