// The common start of an edit that rewrites one existing file (batch_edit, str_replace): resolve
// the path, take the file's edit lock, read it, and keep the ids a failure shows as shown.

import type { Location } from "../location.ts";
import type { Session } from "../session.ts";
import { readTextFile, type TextFile } from "../text_io.ts";
import { type EditServices, resolveWritePath, underLock, withShownFailures } from "./commit.ts";

/** Runs `edit` on the file at `path` as read under its lock; returns what `edit` returns. */
export async function editExistingFile<T>(
  services: EditServices,
  session: Session,
  path: unknown,
  edit: (file: TextFile, location: Location) => Promise<T>,
): Promise<T> {
  const location = await resolveWritePath(services, session, path);
  return await underLock(
    services,
    location,
    () =>
      withShownFailures(session, location, async () => {
        const file = await readTextFile(services.locations, location, services.reads, "an edit");
        return await edit(file, location);
      }),
  );
}
