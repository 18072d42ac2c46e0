// extract_lines: copies a line range of one file into another file (or the same one) at a
// position. The two files may live on different backends (local and ssh://): each Location
// carries its own backend, so nothing here knows where a file is.

import { type Anchor, parseAnchor } from "../../core/edit/edit_ops.ts";
import { planLineEdits } from "../../core/edit/edit_plan.ts";
import { AnchorError } from "../../core/errors.ts";
import { checkLineId, type LineId, parseLineId, staleIdError } from "../../core/edit/line_id.ts";
import type { TextDoc } from "../../core/text/text_file.ts";
import { type Guide, guide, step } from "../../core/next_step.ts";
import { fileKey, type Session } from "../session.ts";
import { readTextFile, type TextFile } from "../text_io.ts";
import {
  commitEdit,
  displayPathOf,
  type EditOptions,
  type EditServices,
  resolvePath,
  resolveWritePath,
  shownMemory,
  underLock,
  withShownFailures,
  writePathOf,
} from "./commit.ts";
import { plural } from "../../core/plural.ts";
import { symbolLines } from "../outline/file_outline.ts";
import { refuseGoneWorkdir } from "../workdir.ts";

interface ExtractLinesArgs {
  from_path: string;
  /** A declaration's name (as view's outline writes it): its lines, doc comment included. */
  from_symbol?: string;
  start?: unknown;
  end?: unknown;
  to_path: string;
  position: unknown;
}

/**
 * A source line: an id (verified) or a plain line number (copying reads, it does not write). A
 * negative number counts from the end like view's (`-1` is the last line), so it is resolved once
 * the file is read.
 */
type SourceLine = { kind: "number"; value: number } | { kind: "id"; id: LineId };

function parseSourceLine(raw: unknown, what: string): SourceLine {
  if (typeof raw === "number" && Number.isInteger(raw) && raw !== 0) {
    return { kind: "number", value: raw };
  }
  if (typeof raw === "string" && /^\s*-?[1-9][0-9]*\s*$/.test(raw)) {
    return { kind: "number", value: Number(raw) };
  }
  return { kind: "id", id: parseLineId(raw, what) };
}

/** Copies the range into to_path; the result keeps the calls it suggests as steps. */
export async function runExtractLines(
  services: EditServices,
  session: Session,
  args: ExtractLinesArgs,
  options: EditOptions = {},
): Promise<Guide> {
  const symbol = sourceSymbol(args);
  const startArg = symbol === undefined ? parseSourceLine(args.start, "start") : undefined;
  const endArg = args.end === undefined || args.end === "" || !startArg
    ? startArg
    : parseSourceLine(args.end, "end");
  const anchor: Anchor = parseAnchor(args.position, "position");
  const from = await resolvePath(services, session, args.from_path, "from_path");
  const to = await resolveWritePath(services, session, args.to_path, "to_path");
  const sameFile = fileKey(from) === fileKey(to);

  return await underLock(services, to, async () => {
    const { source, start, end } = await withShownFailures(session, from, async () => {
      const file = await readTextFile(services.locations, from, services.reads, "extract_lines");
      const shown = displayPathOf(session, from);
      const range = startArg && endArg
        ? resolveSource(file, startArg, endArg, shown, args)
        : await symbolSource(services, file, shown, symbol!, args);
      return { source: file, ...range };
    });
    const copied = source.doc.lines.slice(start - 1, end);
    let target: TextFile;
    let isNew = false;
    if (sameFile) target = source;
    else {
      isNew = (await to.backend.stat(to.path)) === null;
      target = isNew
        ? emptyTarget(to)
        : await readTextFile(services.locations, to, services.reads, "extract_lines");
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
      if (isNew) {
        await refuseGoneWorkdir(services.locations, session, to, args.to_path);
        await to.backend.mkdirp(to.backend.paths.parent(writePathOf(to)));
      }
      return await commitEdit(services, {
        file: target,
        doc,
        action: `extract_lines, ${plural(copied.length, "line")} copied from ${
          displayPathOf(session, from)
        }:${start}-${end}`,
        session,
        options,
        isNew,
      });
    });
  });
}

/** from_symbol when given (then start and end must not be); without either, start is missing. */
function sourceSymbol(args: ExtractLinesArgs): string | undefined {
  const symbol = typeof args.from_symbol === "string" && args.from_symbol.trim() !== ""
    ? args.from_symbol.trim()
    : undefined;
  const hasStart = args.start !== undefined && args.start !== "";
  if (symbol !== undefined && (hasStart || (args.end !== undefined && args.end !== ""))) {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `from_symbol ${
        JSON.stringify(symbol)
      } names the lines to copy, so start/end must be left out.`,
      hint: guide`Give one of them, e.g. ${step("extract_lines", withoutRange(args, symbol))}.`,
    });
  }
  if (symbol === undefined && !hasStart) {
    throw new AnchorError({
      code: "MISSING_ARGUMENT",
      message: "extract_lines needs start (the first line to copy) or from_symbol (a declaration).",
      hint: guide`e.g. ${step("extract_lines", withoutRange(args, "parseConfig"))}.`,
    });
  }
  return symbol;
}

function withoutRange(args: ExtractLinesArgs, symbol: string) {
  return {
    from_path: args.from_path,
    from_symbol: symbol,
    to_path: args.to_path,
    position: args.position,
  };
}

/** The lines of the declaration from_symbol names (doc comment included). */
async function symbolSource(
  services: EditServices,
  file: TextFile,
  shown: string,
  symbol: string,
  args: ExtractLinesArgs,
): Promise<{ start: number; end: number }> {
  if (!services.outliner) {
    throw new AnchorError({
      code: "INTERNAL",
      message: "This server was built without the outline parser, so from_symbol fails.",
      hint: "Not the arguments: give start and end instead.",
      fault: "internal",
    });
  }
  const { from_path, to_path, position } = args;
  return await symbolLines(
    services.outliner,
    {
      shown,
      baseName: file.location.backend.paths.baseName(file.location.path),
      text: file.doc.lines.join("\n"),
    },
    symbol,
    {
      named: (d) => step("extract_lines", withoutRange(args, d.qualified)),
      lines: (d) =>
        step("extract_lines", { from_path, start: d.docStart, end: d.end, to_path, position }),
    },
  );
}

/**
 * Verifies the ids and resolves the numbers of the source range. A number outside the file is
 * refused, not clamped: the copy would silently hold other lines than the caller counted on.
 */
function resolveSource(
  file: TextFile,
  startArg: SourceLine,
  endArg: SourceLine,
  url: string,
  args: ExtractLinesArgs,
): { start: number; end: number } {
  const lines = file.doc.lines;
  const total = lines.length;
  const stale = [];
  for (const [what, s] of [["start", startArg], ["end", endArg]] as const) {
    // end left out is start itself: one stale id, reported once.
    if (s.kind !== "id" || (what === "end" && endArg === startArg)) continue;
    const reason = checkLineId(lines, s.id);
    if (reason) stale.push({ id: s.id, what, reason });
  }
  if (stale.length > 0) throw staleIdError(url, lines, stale);

  const lineOf = (s: SourceLine) =>
    s.kind === "id" ? s.id.line : s.value < 0 ? total + s.value + 1 : s.value;
  const start = lineOf(startArg);
  const end = lineOf(endArg);
  // Ids were verified above, so only numbers can fall outside the file.
  const outside = ([["start", startArg, start], ["end", endArg, end]] as const)
    .filter(([what, s, line]) =>
      s.kind === "number" && (line < 1 || line > total) &&
      !(what === "end" && endArg === startArg) // end left out: start alone is the range
    );
  if (outside.length > 0) {
    const sentences = outside.map(([what, , line]) =>
      `${what} ${what === "start" ? rawNumber(startArg) : rawNumber(endArg)} is ${
        line < 1 ? "before line 1" : "past the end"
      }`
    );
    if (total === 0) {
      throw new AnchorError({
        code: "INVALID_RANGE",
        message: `${sentences.join(" and ")}: ${JSON.stringify(url)} is empty (0 lines).`,
        hint: "There is nothing to copy from it.",
      });
    }
    const clamp = (line: number) => Math.min(Math.max(line, 1), total);
    const fixedStart = clamp(start);
    const fixedEnd = clamp(end);
    const corrected = {
      ...args,
      start: startArg.kind === "number" ? fixedStart : args.start,
      end: endArg.kind === "number" ? fixedEnd : args.end,
    };
    const range = `Line numbers run from 1 to ${total} (-1 is the last line)`;
    const hint = fixedStart <= fixedEnd
      ? guide`${range}, e.g. ${step("extract_lines", corrected)}`
      : `${range}.`;
    throw new AnchorError({
      code: "INVALID_RANGE",
      message: `${sentences.join(" and ")} of ${JSON.stringify(url)}, which has ${
        plural(total, "line")
      }. Nothing was copied.`,
      hint,
    });
  }
  if (end < start) {
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `end (line ${end}) comes before start (line ${start}).`,
      hint: "start is the first line to copy, end the last (inclusive).",
    });
  }
  return { start, end };
}

function rawNumber(s: SourceLine): string {
  return s.kind === "number" ? String(s.value) : "";
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
