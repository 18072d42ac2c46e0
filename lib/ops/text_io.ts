// Reading a file as text for view and every edit: resolve, stat, refuse directories, binary
// and undecodable files with a reason, decode with lib/core/text_file.ts.

import { AnchorError } from "../core/errors.ts";
import { decodeText, type TextDoc } from "../core/text_file.ts";
import type { FileInfo } from "./file_backend.ts";
import type { Location, Locations } from "./location.ts";
import { missingPathError } from "./missing_path.ts";
import { plural } from "../core/plural.ts";

export interface TextFile {
  location: Location;
  doc: TextDoc;
  /** The stat taken before reading: writes pass it back as `expect` to detect changes. */
  info: FileInfo;
  bytes: Uint8Array;
}

/** Reads and decodes a text file; throws NOT_FOUND / IS_A_DIRECTORY / BINARY_FILE otherwise. */
export async function readTextFile(locations: Locations, location: Location): Promise<TextFile> {
  const info = await location.backend.stat(location.path);
  if (!info) throw await missingPathError(locations, location, "file");
  if (info.type === "dir") {
    throw new AnchorError({
      code: "IS_A_DIRECTORY",
      message: `${JSON.stringify(location.url)} is a directory, not a file.`,
      hint: `view ${JSON.stringify({ path: location.url })} lists its files; name one of them.`,
    });
  }
  const bytes = await location.backend.readFile(location.path);
  const decoded = decodeText(bytes);
  if (decoded.kind === "binary") {
    throw new AnchorError({
      code: "BINARY_FILE",
      message:
        `${JSON.stringify(location.url)} is a binary file (${decoded.reason}, ${
          plural(bytes.length, "byte")
        }); ` +
        "it is not shown or edited as text, so nothing could be corrupted.",
      hint: "Use the shell for binary files (e.g. `file`, `xxd | head`), or pick a text file.",
    });
  }
  return { location, doc: decoded.doc, info, bytes };
}
