// The NOT_FOUND error every tool gives for a missing path: it names the path and its nearest
// existing parent so the next call can list what is there.

import { AnchorError } from "../core/errors.ts";
import { joinGuide, step } from "../core/next_step.ts";
import type { Location, Locations } from "./location.ts";

async function nearestExistingParent(location: Location): Promise<string | null> {
  const { parent } = location.backend.paths;
  let dir = parent(location.path);
  for (let i = 0; i < 64; i++) {
    const info = await location.backend.stat(dir).catch(() => null);
    if (info?.type === "dir") return dir;
    if (parent(dir) === dir) return null;
    dir = parent(dir);
  }
  return null;
}

/** The URL of the nearest existing parent directory of a missing `location` (null: none). */
export async function nearestExistingParentUrl(
  locations: Locations,
  location: Location,
): Promise<string | null> {
  const parent = await nearestExistingParent(location);
  return parent === null ? null : locations.sibling(location, parent).url;
}

export async function missingPathError(
  locations: Locations,
  location: Location,
  what = "file or directory",
): Promise<AnchorError> {
  const parentUrl = await nearestExistingParentUrl(locations, location);
  return new AnchorError({
    code: "NOT_FOUND",
    message: `No ${what} at ${JSON.stringify(location.url)}.` +
      (parentUrl ? ` The nearest existing parent is ${JSON.stringify(parentUrl)}.` : ""),
    hint: parentUrl
      ? joinGuide(
        step("view", { path: parentUrl }),
        " to list what is there, then retry with the right path.",
      )
      : "Check the path; it does not exist on this machine.",
  });
}
