// The line operations of batch_edit and extract_lines: their shape, the validation of what a
// model sent (every message names the operation and the fix), and how an operation is named.

import { AnchorError } from "../errors.ts";
import { hashHex, type LineId, parseLineId } from "./line_id.ts";
import { argExample, type Guide, guide } from "../next_step.ts";

/** Where an insert goes: after a verified line, at the start (0) or at the end (-1). */
export type Anchor = { kind: "start" } | { kind: "end" } | { kind: "after"; id: LineId };

/**
 * One line operation, validated ({@linkcode parseEditOps} builds them from what a model sent);
 * `what` names it in messages (e.g. "operations[1]").
 */
export type EditOp =
  | { op: "insert"; anchor: Anchor; lines: string[]; what: string }
  | { op: "replace"; start: LineId; end: LineId; lines: string[]; what: string };

/** An operation as a model sends it; validated by parseEditOps. */
interface RawEditOp {
  op?: unknown;
  anchor?: unknown;
  start?: unknown;
  end?: unknown;
  content?: unknown;
}

// Exported for tests.
/** Splits content into lines: CRLF is read as LF, one trailing newline ends the last line. */
export function contentLines(content: string): string[] {
  const text = content.replace(/\r\n/g, "\n");
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

function invalidOp(message: string, hint: string | Guide): AnchorError {
  return new AnchorError({ code: "INVALID_OPERATION", message, hint });
}

/**
 * Example operations, as an argument example: the tool call's `{"operations":[…]}` is also what
 * `anchorfs edit --batch` reads, so both interfaces show the same JSON.
 */
const EXAMPLE_OPS = guide`e.g. ${
  argExample("batch_edit", {
    operations: [
      { op: "replace", start: "12:a3", end: "14:0f", content: "new lines\n" },
      { op: "insert", anchor: -1, content: "appended\n" },
    ],
  })
}`;

/** Parses an anchor: 0 (start), -1 (end), or a line id. Any other number is refused. */
export function parseAnchor(raw: unknown, what: string): Anchor {
  if (raw === 0 || raw === "0") return { kind: "start" };
  if (raw === -1 || raw === "-1") return { kind: "end" };
  if (raw === undefined || raw === null || raw === "") {
    throw invalidOp(
      `${what} is missing: an insert needs an anchor.`,
      `Pass "anchor": a line id to insert after (e.g. "12:a3"), 0 for the file start, or -1 to append.`,
    );
  }
  if (typeof raw === "number") {
    throw new AnchorError({
      code: "INVALID_LINE_ID",
      message: `${what} ${raw} is a bare line number; only 0 (file start) and -1 (end of file) ` +
        `are accepted as numbers, because a number alone cannot prove the line is still the ` +
        `one you saw.`,
      hint: `Pass the line's id as view shows it before the "|", e.g. "${
        Math.abs(raw) || 1
      }:a3"; run view to get current ids.`,
    });
  }
  return { kind: "after", id: parseLineId(raw, what) };
}

/** Validates the operations a model sent; every message names the operation by index. */
export function parseEditOps(raw: unknown): EditOp[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw invalidOp(
      "operations must be a non-empty list of insert/replace operations.",
      EXAMPLE_OPS,
    );
  }
  return raw.map((given: RawEditOp, i): EditOp => {
    const at = `operations[${i}]`;
    if (typeof given !== "object" || given === null) {
      throw invalidOp(`${at} is not an object.`, EXAMPLE_OPS);
    }
    const item = withOctofsNames(given);
    if (item.op !== "insert" && item.op !== "replace") throw unknownOp(item, at);
    if (typeof item.content !== "string") {
      throw invalidOp(
        `${at}.content is missing or not a string.`,
        'Give the new lines as one string, e.g. "content": "line one\\nline two\\n"; "" deletes ' +
          "the replaced lines.",
      );
    }
    const lines = contentLines(item.content);
    if (item.op === "insert") {
      if (item.start !== undefined || item.end !== undefined) {
        throw invalidOp(
          `${at} is an insert but has start/end; an insert takes "anchor".`,
          `{"op":"insert","anchor":"12:a3","content":"..."} inserts after line 12, or use ` +
            `{"op":"replace","start":...,"end":...} to replace lines.`,
        );
      }
      if (lines.length === 0) {
        throw invalidOp(
          `${at} inserts empty content: nothing would change.`,
          'Give the lines to insert; "\\n" inserts one blank line.',
        );
      }
      return { op: "insert", anchor: parseAnchor(item.anchor, `${at}.anchor`), lines, what: at };
    }
    if (item.op === "replace") {
      if (item.anchor !== undefined) {
        throw invalidOp(
          `${at} is a replace but has "anchor"; a replace takes "start" and optional "end".`,
          `{"op":"replace","start":"12:a3","end":"14:0f","content":"..."}`,
        );
      }
      if (item.start === undefined) {
        throw invalidOp(
          `${at}.start is missing: a replace needs the id of its first line.`,
          `{"op":"replace","start":"12:a3","end":"14:0f","content":"..."}`,
        );
      }
      const start = parseLineId(item.start, `${at}.start`);
      const end = item.end === undefined || item.end === ""
        ? start
        : parseLineId(item.end, `${at}.end`);
      if (end.line < start.line) {
        throw invalidOp(
          `${at}: end ${end.line}:${hashHex(end.hash)} comes before start ${start.line}:${
            hashHex(start.hash)
          }.`,
          "Swap them: start is the first line of the range, end the last (inclusive).",
        );
      }
      return { op: "replace", start, end, lines, what: at };
    }
    throw unknownOp(item, at); // unreachable: checked above
  });
}

/**
 * Octofs's spelling of an operation, read as ours: "operation" for "op", an insert's "start" as
 * its anchor, and content given as a list of lines.
 */
function withOctofsNames(item: RawEditOp): RawEditOp {
  const out: RawEditOp & { operation?: unknown } = { ...item };
  if (out.op === undefined && out.operation !== undefined) out.op = out.operation;
  delete out.operation;
  if (
    out.op === "insert" && out.anchor === undefined && out.start !== undefined &&
    out.end === undefined
  ) {
    out.anchor = out.start;
    delete out.start;
  }
  if (Array.isArray(out.content) && out.content.every((l) => typeof l === "string")) {
    out.content = out.content.join("\n");
  }
  return out;
}

/**
 * The op name is checked before anything else: an unknown op (often "delete") would otherwise be
 * reported as its missing content, which sends the model to fix the wrong field.
 */
function unknownOp(item: RawEditOp, at: string): AnchorError {
  const what = item.op === undefined
    ? `${at}.op is missing`
    : `${at}.op is ${JSON.stringify(item.op)}`;
  const ops =
    'batch_edit has two ops: "insert" (after an anchor) and "replace" (a start..end range)';
  const name = typeof item.op === "string" ? item.op.trim().toLowerCase() : "";
  if (["delete", "remove", "del", "erase"].includes(name)) {
    const start = item.start ?? item.anchor;
    const range = start === undefined
      ? { op: "replace", start: "12:a3", end: "14:0f", content: "" }
      : { op: "replace", start, end: item.end ?? start, content: "" };
    return invalidOp(
      `${what}; ${ops}. To delete lines, replace them with empty content.`,
      `Use ${JSON.stringify(range)}${start === undefined ? " (ids as view shows them)" : ""}.`,
    );
  }
  return invalidOp(
    `${what}; ${ops}. To delete lines, replace them with content "".`,
    EXAMPLE_OPS,
  );
}

/** An operation as messages name it: `operations[2] (replace 12:a3..14:0f)`. */
export function describeOp(op: EditOp): string {
  if (op.op === "insert") {
    const a = op.anchor;
    return `${op.what} (insert after ${
      a.kind === "start" ? "0 (file start)" : a.kind === "end" ? "-1 (end)" : idText(a.id)
    })`;
  }
  return `${op.what} (replace ${idText(op.start)}${
    op.end.line === op.start.line ? "" : `..${idText(op.end)}`
  })`;
}

const idText = (id: LineId) => `${id.line}:${hashHex(id.hash)}`;
