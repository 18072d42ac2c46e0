// extract_lines: copies a line range of one file into another file (or the same one) at a
// position. The two files may live on different backends (local and ssh://): each Location
// carries its own backend, so nothing here knows where a file is.

import { type Anchor, parseAnchor } from "../../core/edit_ops.ts";
import { planLineEdits } from "../../core/edit_plan.ts";
import { AnchorError } from "../../core/errors.ts";
import { checkLineId, type LineId, parseLineId, staleIdError } from "../../core/line_id.ts";
import { parentPath } from "../../core/path_text.ts";
import type { TextDoc } from "../../core/text_file.ts";
import { fileKey, type Session } from "../session.ts";
import { readTextFile, type TextFile } from "../text_io.ts";
import {
  commitEdit,
  displayPathOf,
  type EditOptions,
  type EditServices,
  plural,
  resolvePath,
  shownMemory,
  underLock,
  withShownFailures,
} from "./commit.ts";

export interface ExtractLinesArgs {
  from_path: string;
  start: unknown;
  end?: unknown;
  to_path: string;
  position: unknown;
}

/** A source line: an id (verified) or a plain 1-based number (copying reads, it does not write). */
function parseSourceLine(raw: unknown, what: string): { line: number; id?: LineId } {
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= 1) return { line: raw };
  if (typeof raw === "string" && /^\s*[1-9][0-9]*\s*$/.test(raw)) return { line: Number(raw) };
  const id = parseLineId(raw, what);
  return { line: id.line, id };
}

export async function runExtractLines(
  services: EditServices,
  session: Session,
  args: ExtractLinesArgs,
  options: EditOptions = {},
): Promise<string> {
  const start = parseSourceLine(args.start, "start");
  const end = args.end === undefined || args.end === "" ? start : parseSourceLine(args.end, "end");
  if (end.line < start.line) {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `end (line ${end.line}) comes before start (line ${start.line}).`,
      hint: "start is the first line to copy, end the last (inclusive).",
    });
  }
  const anchor: Anchor = parseAnchor(args.position, "position");
  const from = await resolvePath(services, session, args.from_path, "from_path");
  const to = await resolvePath(services, session, args.to_path, "to_path");
  const sameFile = fileKey(from) === fileKey(to);

  return await underLock(services, to, async () => {
    const source = await withShownFailures(session, from, async () => {
      const file = await readTextFile(services.locations, from);
      verifySource(file, start, end, displayPathOf(session, from));
      return file;
    });
    const copied = source.doc.lines.slice(start.line - 1, end.line);
    let target: TextFile;
    let isNew = false;
    if (sameFile) target = source;
    else {
      isNew = (await to.backend.stat(to.path)) === null;
      target = isNew ? emptyTarget(to) : await readTextFile(services.locations, to);
    }
    if (isNew && anchor.kind === "after") {
      throw new AnchorError({
        code: "NOT_FOUND",
        message: `${
          JSON.stringify(displayPathOf(session, to))
        } does not exist, so position cannot name a line in it.`,
        hint: "Use position 0 or -1 to create the file with the copied lines.",
      });
    }
    return await withShownFailures(session, to, async () => {
      const doc = planLineEdits(target.doc, [{
        op: "insert",
        anchor,
        lines: copied,
        what: "position",
      }], { path: displayPathOf(session, to), shown: shownMemory(session, to) });
      if (isNew) await to.backend.mkdirp(parentPath(to.path));
      return await commitEdit(services, {
        file: target,
        doc,
        action: `extract_lines, ${plural(copied.length, "line")} copied from ${
          displayPathOf(session, from)
        }:${start.line}-${end.line}`,
        session,
        options,
        isNew,
      });
    });
  });
}

function verifySource(
  file: TextFile,
  start: { line: number; id?: LineId },
  end: { line: number; id?: LineId },
  url: string,
): void {
  const lines = file.doc.lines;
  const stale = [];
  for (const [what, s] of [["start", start], ["end", end]] as const) {
    if (s.id) {
      const reason = checkLineId(lines, s.id);
      if (reason) stale.push({ id: s.id, what, reason });
    } else if (s.line > lines.length) {
      stale.push({ id: { line: s.line, hash: 0 }, what, reason: "out_of_range" as const });
    }
  }
  if (stale.length > 0) throw staleIdError(url, lines, stale);
}

/** A file that does not exist yet, as an empty document that must still not exist at write time. */
function emptyTarget(location: TextFile["location"]): TextFile {
  const doc: TextDoc = { encoding: "utf-8", bom: false, lines: [], eols: [] };
  return {
    location,
    doc,
    info: { type: "file", size: 0, mode: null, mtimeMs: null },
    bytes: new Uint8Array(),
  };
}
