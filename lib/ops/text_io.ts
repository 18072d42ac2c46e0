// Reading a file as text for view and every edit: resolve, stat, refuse directories, FIFOs and
// devices, binary files (from their first bytes) and files above the size limit with a reason,
// then decode with lib/core/text/text_file.ts inside the process-wide read budget.

import { AnchorError } from "../core/errors.ts";
import {
  type DecodedText,
  decodeTextBody,
  looksBinary,
  sniffTextBody,
  splitLines,
  type TextDoc,
  type UndecodedText,
} from "../core/text/text_file.ts";
import { guide, step } from "../core/next_step.ts";
import type { FileInfo } from "./ports/file_backend.ts";
import type { Location, Locations } from "./location.ts";
import { missingPathError } from "./missing_path.ts";
import {
  assertWithinLimit,
  createReadLimits,
  type ReadLimits,
  readWithinLimit,
  SNIFF_BYTES,
} from "./read_limits.ts";
import { assertRegularFile, bigFileAlternatives } from "../core/read_refusals.ts";
import { formatSize } from "../core/byte_size.ts";

/**
 * A decoded file is held about this many times over while it is worked on (bytes, text, lines,
 * what is rendered from them): what it takes from the read budget.
 */
const DOC_COPIES = 4;

export interface TextFile {
  location: Location;
  doc: TextDoc;
  /** The stat taken before reading: writes pass it back as `expect` to detect changes. */
  info: FileInfo;
  bytes: Uint8Array;
}

/** A text file decoded but not split into lines (TextFile's `doc` is made from `body`). */
interface TextBody {
  location: Location;
  body: DecodedText;
  info: FileInfo;
  bytes: Uint8Array;
}

/**
 * Reads and decodes a text file; throws NOT_FOUND / IS_A_DIRECTORY / NOT_A_REGULAR_FILE /
 * BINARY_FILE / FILE_TOO_LARGE otherwise. `action` names the operation in the errors ("view",
 * "str_replace"). Without `limits`, the default limit applies and the budget is this call's own.
 */
export async function readTextFile(
  locations: Locations,
  location: Location,
  limits: ReadLimits = createReadLimits(),
  action = "this call",
): Promise<TextFile> {
  return await readDecoded(locations, location, limits, action, (body, bytes, info) => {
    const { lines, eols } = splitLines(body.text);
    return { location, doc: { encoding: body.encoding, bom: body.bom, lines, eols }, info, bytes };
  });
}

/** readTextFile without the split into lines: for reads that need only some lines. */
export async function readTextBody(
  locations: Locations,
  location: Location,
  limits: ReadLimits = createReadLimits(),
  action = "this call",
): Promise<TextBody> {
  return await readDecoded(
    locations,
    location,
    limits,
    action,
    (body, bytes, info) => ({ location, body, info, bytes }),
  );
}

/** A text file as readTextSniffed reads it: its body decoded (UTF-16) or left as bytes. */
type SniffedTextFile =
  & { location: Location; info: FileInfo; bytes: Uint8Array }
  & ({ body: DecodedText; undecoded?: undefined } | { body?: undefined; undecoded: UndecodedText });

/**
 * A text file read for a view of some of its lines: a UTF-8 or Latin-1 body is checked but left
 * as bytes (`undecoded`), so a long file's 100-line view makes no string of the whole file;
 * UTF-16 is decoded (`body`). The same refusals as readTextBody.
 */
export async function readTextSniffed(
  locations: Locations,
  location: Location,
  limits: ReadLimits = createReadLimits(),
  action = "this call",
): Promise<SniffedTextFile> {
  return await readChecked(locations, location, limits, action, (bytes, info) => {
    const sniffed = sniffTextBody(bytes);
    if (sniffed.kind === "binary") throw binaryFile(location, sniffed.reason, bytes.length);
    return sniffed.kind === "undecoded"
      ? { location, info, bytes, undecoded: sniffed.body }
      : { location, info, bytes, body: sniffed.body };
  });
}

async function readDecoded<T>(
  locations: Locations,
  location: Location,
  limits: ReadLimits,
  action: string,
  finish: (body: DecodedText, bytes: Uint8Array, info: FileInfo) => T,
): Promise<T> {
  return await readChecked(locations, location, limits, action, (bytes, info) => {
    const decoded = decodeTextBody(bytes);
    if (decoded.kind === "binary") throw binaryFile(location, decoded.reason, bytes.length);
    return finish(decoded.body, bytes, info);
  });
}

/**
 * The file's bytes after the checks every text read makes (a file, not too large, not binary
 * from its head), handed to `finish` while the read budget holds them.
 */
async function readChecked<T>(
  locations: Locations,
  location: Location,
  limits: ReadLimits,
  action: string,
  finish: (bytes: Uint8Array, info: FileInfo) => T,
): Promise<T> {
  const info = await location.backend.stat(location.path);
  if (!info) throw await missingPathError(locations, location, "file");
  if (info.type === "dir") {
    throw new AnchorError({
      code: "IS_A_DIRECTORY",
      message: `${JSON.stringify(location.url)} is a directory, not a file.`,
      hint: guide`${step("view", { path: location.url })} lists its files; name one of them.`,
    });
  }
  const shell = location.host.shell;
  assertRegularFile(location.url, info, action, shell);
  // Binary from the first bytes: a 3 GB disk image is named without reading it. A file within
  // the limit is read whole anyway, and `finish` judges its head from those bytes (the same
  // refusal): one open, not two, and no window for the file to be swapped between a sniffed
  // head and the bytes read (over ssh://, one round trip fewer).
  if (info.size > SNIFF_BYTES && info.size > limits.maxFileBytes) {
    const head = await location.backend.readRange(location.path, 0, SNIFF_BYTES);
    if (looksBinary(head)) throw binaryFile(location, "contains NUL bytes", info.size);
  }
  assertWithinLimit(
    location.url,
    info.size,
    limits,
    action,
    bigFileAlternatives(location.url, shell),
  );
  return await limits.budget.use(info.size * DOC_COPIES, async () => {
    // Bounded whatever the stat said: a log grows while read, a /proc file states 0 bytes.
    const bytes = await readWithinLimit(
      location.backend,
      location.path,
      location.url,
      info.size,
      limits,
      action,
      bigFileAlternatives(location.url, shell),
    );
    return finish(bytes, info);
  });
}

function binaryFile(location: Location, reason: string, size: number): AnchorError {
  return new AnchorError({
    code: "BINARY_FILE",
    message: `${JSON.stringify(location.url)} is a binary file (${reason}, ${
      formatSize(size)
    }); it is not shown or edited as text, so nothing could be corrupted.`,
    hint: "Use the shell for binary files (e.g. `file`, `xxd | head`), or pick a text file.",
  });
}
