// Line ids `N:hh`: a 1-based line number plus a 2-hex hash of the line's content. Pure: parsing,
// hashing, verification and the stale-id report. The hash definition is a compatibility promise
// shared with other tools (FNV-1a 32-bit over UTF-8, folded to 8 bits); never change it.

import { AnchorError } from "../errors.ts";
import { plural } from "../plural.ts";
import { type Guide, guide, type GuidePart, joinGuide, joinGuides, step } from "../next_step.ts";

const encoder = new TextEncoder();

/** FNV-1a's 32-bit offset basis (2166136261) as a signed 32-bit integer. */
const FNV_OFFSET_INT32 = 2166136261 | 0;
/** FNV-1a's 32-bit prime. */
const FNV_PRIME = 16777619;

/** FNV-1a 32-bit over the UTF-8 bytes of `text`. */
export function fnv1a32(bytes: Uint8Array): number {
  // The state stays a signed 32-bit integer (the same bits as the unsigned FNV state): an
  // unsigned one above 2^31 is boxed as a heap number per step in V8's lower tiers.
  let h = FNV_OFFSET_INT32;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h >>> 0;
}

/** Folds a 32-bit hash to 8 bits: h16 = (h >>> 16) ^ (h & 0xffff); hh = (h16 >>> 8) ^ (h16 & 0xff). */
export function fold8(h: number): number {
  const h16 = (h >>> 16) ^ (h & 0xffff);
  return ((h16 >>> 8) ^ (h16 & 0xff)) & 0xff;
}

/** A line's 32-bit content fingerprint (FNV-1a over UTF-8), stored next to its 8-bit hash. */
export function linePrint(line: string): number {
  // ASCII fast path: avoids allocating an encoded copy for the common case.
  let h = FNV_OFFSET_INT32;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c >= 0x80) return fnv1a32(encoder.encode(line));
    h = Math.imul(h ^ c, FNV_PRIME);
  }
  return h >>> 0;
}

/** The 8-bit content hash of one line (without its terminator). Position never enters it. */
export function hashLine(line: string): number {
  return fold8(linePrint(line));
}

export function hashHex(hash: number): string {
  return hash.toString(16).padStart(2, "0");
}

/** A parsed line id `N:hh`. */
export interface LineId {
  /** 1-based line number. */
  line: number;
  /** 8-bit content hash. */
  hash: number;
}

/**
 * The id of a line: its 1-based number and the 2-hex hash of its content.
 *
 * @example
 * ```ts
 * import { formatLineId } from "@anchorfs/anchorfs";
 *
 * formatLineId(42, "hello"); // "42:57"
 * ```
 */
export function formatLineId(line: number, content: string): string {
  return `${line}:${hashHex(hashLine(content))}`;
}

/** Renders one line as the model sees it: `N:hh|content`. */
export function renderLine(line: number, content: string): string {
  return `${line}:${hashHex(hashLine(content))}|${content}`;
}

/** Hex digits in either case: `2:EF` (a model that upper-cased it) is the id `2:ef`. */
const ID_PATTERN = /^([1-9][0-9]*):([0-9a-fA-F]{2})$/;

/**
 * Parses a line id strictly. `what` names the argument in errors ("start", "anchor").
 * Accepts the `N:hh|content` form an agent may paste from a view, and ignores what follows `|`;
 * the hash may be upper case.
 */
export function parseLineId(raw: unknown, what = "line id"): LineId {
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw : "";
  const trimmed = text.trim();
  const core = trimmed.includes("|") ? trimmed.slice(0, trimmed.indexOf("|")) : trimmed;
  const match = ID_PATTERN.exec(core);
  if (match) return { line: Number(match[1]), hash: parseInt(match[2]!, 16) };
  throw new AnchorError({
    code: "INVALID_LINE_ID",
    message: `${what} ${JSON.stringify(raw)} is not a line id: ${explainBadId(core)}`,
    hint: `Pass the id exactly as view shows it before the "|", e.g. "42:a3" for the line shown ` +
      `as "42:a3|...". Run view on the file to get current ids.`,
  });
}

function explainBadId(text: string): string {
  if (text === "") return "it is empty.";
  if (/^-?[0-9]+$/.test(text)) {
    return `a bare number is only a position; an id also carries the content hash (e.g. "${
      text === "0" ? "1" : text.replace(/^-/, "")
    }:a3").`;
  }
  if (/^[0-9]+:$/.test(text)) return "the 2-hex hash after the colon is missing.";
  if (/^0+:/.test(text)) return "line numbers start at 1.";
  if (/^[0-9]+:/.test(text)) return "the hash must be exactly two hex digits (0-9, a-f).";
  return 'the form is "N:hh": a line number, a colon, two lowercase hex digits.';
}

export function isLineIdLike(raw: unknown): boolean {
  return typeof raw === "string" && /^\s*[0-9]+:/.test(raw);
}

/** Where content with a given hash sits now, nearest to the expected line first. */
export function findMovedLines(
  lines: readonly string[],
  hash: number,
  near: number,
  limit = 3,
  index: LineHashIndex = lineHashIndex(lines),
): number[] {
  // The nearest `limit` of the ascending line numbers with this hash: two pointers from `near`
  // (a tie goes to the line above). Scanning and hashing every line per stale id made a report
  // on 20,000 stale ids cost 20,000 passes over the file.
  const list = index.get(hash) ?? [];
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < near) lo = mid + 1;
    else hi = mid;
  }
  const found: number[] = [];
  let left = lo - 1;
  let right = lo;
  while (found.length < limit && (left >= 0 || right < list.length)) {
    const dl = left >= 0 ? near - list[left]! : Infinity;
    const dr = right < list.length ? list[right]! - near : Infinity;
    found.push(dl <= dr ? list[left--]! : list[right++]!);
  }
  return found;
}

/** 1-based line numbers by 8-bit hash, ascending: built once per report, read per stale id. */
export type LineHashIndex = ReadonlyMap<number, readonly number[]>;

export function lineHashIndex(lines: readonly string[]): LineHashIndex {
  const index = new Map<number, number[]>();
  for (let i = 0; i < lines.length; i++) {
    const h = hashLine(lines[i]!);
    const list = index.get(h);
    if (list) list.push(i + 1);
    else index.set(h, [i + 1]);
  }
  return index;
}

/** A line id that no longer matches the file, and why. */
export interface StaleId {
  /** The id as given. */
  id: LineId;
  /** What argument held the id (e.g. "start", "operations[2].end"). */
  what: string;
  /** Why it failed: out of range, or the hash differs from the current line. */
  reason: "out_of_range" | "hash_mismatch" | "interior_changed";
}

/** Returns null when the id matches the current lines, else why it does not. */
export function checkLineId(
  lines: readonly string[],
  id: LineId,
): "out_of_range" | "hash_mismatch" | null {
  if (id.line < 1 || id.line > lines.length) return "out_of_range";
  return hashLine(lines[id.line - 1]!) === id.hash ? null : "hash_mismatch";
}

/**
 * Builds the text that lets a model retry in one step: for each stale id, the current content
 * around it (±2 lines) with fresh ids, where content with the expected hash is now, and a
 * concrete view range.
 */
export function formatStaleReport(
  path: string,
  lines: readonly string[],
  stale: readonly StaleId[],
  movedBy?: (line: number) => number | undefined,
): Guide {
  const blocks: Guide[] = [];
  let index: LineHashIndex | undefined;
  for (const s of stale.slice(0, MAX_STALE_DETAILED)) {
    const { line, hash } = s.id;
    const idText = `${line}:${hashHex(hash)}`;
    const out: GuidePart[] = [];
    if (s.reason === "out_of_range") {
      out.push(
        `${s.what} ${idText}: line ${line} does not exist; the file has ${
          plural(lines.length, "line")
        } now.`,
      );
    } else if (s.reason === "interior_changed") {
      out.push(
        `${s.what} ${idText}: the line matches by hash, but lines inside the range changed ` +
          `since you were shown them.`,
      );
    } else {
      out.push(`${s.what} ${idText}: line ${line} no longer has hash ${hashHex(hash)}.`);
    }
    const from = Math.max(1, Math.min(line, lines.length) - 2);
    const to = Math.min(lines.length, Math.max(line, 1) + 2);
    if (lines.length > 0) {
      out.push(`Current content of lines ${from}-${to}:`);
      for (let n = from; n <= to; n++) out.push(renderLine(n, lines[n - 1]!));
    } else {
      out.push("The file is empty now.");
    }
    if (s.reason !== "interior_changed") {
      const found = findMovedLines(lines, hash, line, 3, index ??= lineHashIndex(lines))
        .filter((n) => n !== line);
      const shift = movedBy?.(line);
      const moved = preferShift(found, line, shift);
      if (moved.length > 0) {
        const order = moved[0] !== found[0]
          ? `line ${moved[0]} first: the lines shown around it moved ${signedShift(shift!)}`
          : "nearest first";
        out.push(
          `Content with hash ${hashHex(hash)} is now at: ${
            moved.map((n) => renderLine(n, lines[n - 1]!)).join(", ")
          } (${order}; an 8-bit hash can collide, check the content).`,
        );
      } else {
        out.push(
          `No line in the file has hash ${hashHex(hash)} now: the content was changed or removed.`,
        );
      }
    }
    out.push(guide`To see more: ${step("view", { path, start: from, end: Math.max(from, to) })}`);
    blocks.push(joinGuides(out, "\n"));
  }
  if (stale.length > MAX_STALE_DETAILED) {
    blocks.push(
      joinGuide(`... ${plural(stale.length - MAX_STALE_DETAILED, "more stale id")} not detailed.`),
    );
  }
  return joinGuides(blocks, "\n\n");
}

/**
 * Candidate lines, the one that moved by `shift` (what the lines around it did) first: among
 * lines of one hash (blank lines, `}`) the nearest is often not the one that moved there.
 */
export function preferShift(
  candidates: readonly number[],
  line: number,
  shift: number | undefined,
): number[] {
  if (shift === undefined) return [...candidates];
  const agreeing = candidates.find((n) => n - line === shift);
  return agreeing === undefined
    ? [...candidates]
    : [agreeing, ...candidates.filter((n) => n !== agreeing)];
}

function signedShift(n: number): string {
  return n > 0 ? `+${n}` : `${n}`;
}

/** Stale ids given a block each in a report; the count of the rest follows (bounds its size). */
const MAX_STALE_DETAILED = 50;

/** Throws STALE_LINE_ID with the full report when any id does not match. */
export function assertFresh(
  path: string,
  lines: readonly string[],
  ids: readonly { id: LineId; what: string }[],
  /** Said after the stale ids; a read-only caller passes "" (nothing was going to be written). */
  outcome = "nothing was written",
): void {
  const stale: StaleId[] = [];
  for (const { id, what } of ids) {
    const reason = checkLineId(lines, id);
    if (reason) stale.push({ id, what, reason });
  }
  if (stale.length > 0) throw staleIdError(path, lines, stale, outcome);
}

/**
 * The STALE_LINE_ID error for `stale` ids of `path`: the message names the first one, the detail
 * is {@linkcode formatStaleReport}'s report, and `outcome` says what did not happen.
 */
export function staleIdError(
  path: string,
  lines: readonly string[],
  stale: readonly StaleId[],
  outcome = "nothing was written",
  movedBy?: (line: number) => number | undefined,
): AnchorError {
  const first = stale[0]!;
  return new AnchorError({
    code: "STALE_LINE_ID",
    message: `${stale.length === 1 ? "Line id" : `${stale.length} line ids`} for ${path} ${
      stale.length === 1 ? "is" : "are"
    } stale (first: ${first.what} ${first.id.line}:${hashHex(first.id.hash)})${
      outcome ? `; ${outcome}` : ""
    }.`,
    detail: formatStaleReport(path, lines, stale, movedBy),
    hint: "Retry with the fresh ids shown above (they are current), or view the range named above.",
  });
}
