// The matching lines of one file, found where its bytes are: decoded chunk by chunk (UTF-8, UTF-8
// with BOM, UTF-16 with BOM, Latin-1 when not UTF-8, as core/text/text_file.ts decodes), split
// as splitLines splits, and searched a bounded window at a time, keeping only the lines a search
// shows (matches and their context, long lines cut around the match). Pure and self-contained:
// the search's worker threads run these functions from their source text
// (lib/backends/local/parallel_scan.ts) and the main thread runs them as they are, so both
// answer the same. No function here may use anything from outside its own body but its
// parameters, globals, and the other functions listed in LINE_MATCHER_SOURCE.

import type { MatcherRecipe } from "./linear_regex.ts";
import { matcherFromRecipe } from "./linear_regex.ts";
import { windowBounds } from "./line_window.ts";

/** What a search looks for, as data a worker thread can rebuild (see openMatchers). */
export interface MatchSpec {
  /**
   * Text every matching line holds (a literal search's text, a regex's required run): only
   * lines holding it are candidates. Absent when none is known.
   */
  needle?: { text: string; ignoreCase: boolean };
  /** The regex a candidate line must match; absent for a literal search (the needle decides). */
  line?: MatcherRecipe;
  /**
   * Without a needle: the same regex in multi-line mode, run on a window of lines to find those
   * that may match. Absent when it cannot be trusted to (then every line is a candidate).
   */
  probe?: MatcherRecipe;
  /** A window holding `\r` may match though the probe says no (RE2's `$` before CRLF). */
  crMayHide?: boolean;
  /**
   * The longest match of the probe, in UTF-16 units, when bounded (regex_width.ts): a line
   * longer than the probe's window is then probed in overlapping windows.
   */
  probeWidth?: number;
}

/** How much of each file to keep. */
export interface MatchOptions {
  /** Lines of context before and after each kept match. */
  context: number;
  /** Matching lines kept per file (all are counted). */
  perFile: number;
  /** Lines longer than this are kept as a cut around the match (LineExcerpt). */
  maxChars: number;
  /** Shown lines to keep at most: the caller's output cap has room for no more. */
  room: number;
}

/** One line to show: its number, and its text or, for a long line, an excerpt of it. */
export interface ShownLine {
  n: number;
  /** The whole line, or for a `long` one the characters from `long.offset`. */
  text: string;
  /** A line over maxChars: its length, fingerprint (linePrint) and the match shown in it. */
  long?: { offset: number; length: number; print: number; from: number; to: number };
}

/** What one file holds for a search. */
export interface FileMatches {
  /** Matching lines in the file (every one, though only `perFile` are kept). */
  count: number;
  /** The numbers of the kept matching lines, ascending. */
  kept: number[];
  /** The number of the first matching line after the kept ones; 0 when there is none. */
  next: number;
  /** Lines in the file. */
  lineCount: number;
  /** The kept matches and their context, ascending; consecutive numbers form one run. */
  shown: ShownLine[];
  /** True when `room` ran out: more lines were due than `shown` holds. */
  truncated: boolean;
}

/** A file's answer: its matches, or none, or binary; "stopped" when `stopped()` said so. */
export type FileScan = FileMatches | "miss" | "binary" | "stopped";

/** The matchers a MatchSpec describes (openMatchers). */
export interface LineMatchers {
  /** Index of the needle in `text` at or after `from`, or -1; null without a needle. */
  needle: ((text: string, from: number) => number) | null;
  /** The needle's length in UTF-16 units (a case-blind match is as long); 0 without one. */
  needleLength: number;
  /** Whether the needle holds a line break (it may then match across lines). */
  needleSpansLines: boolean;
  /** A literal search: a line matches when it holds the needle, first found where it is. */
  needleDecides: boolean;
  /** Whether a window of whole lines may hold a match; null without a probe. */
  probe: ((text: string) => boolean) | null;
  crMayHide: boolean;
  probeWidth: number | null;
  test(line: string): boolean;
  find(line: string): [number, number] | null;
  /** This thread's UTF-8 decoders, made once: the single-pass one, and a strict one. */
  utf8: TextDecoder;
  utf8Strict: TextDecoder;
}

/** re2js's RE2JS, passed in (a worker imports it itself; a bundle may have no way to). */
type Re2Compiler = Parameters<typeof matcherFromRecipe>[1];

/** The matchers of `spec`. Throws when it needs re2js and `re2` is null. */
export function openMatchers(spec: MatchSpec, re2: Re2Compiler): LineMatchers {
  const line = spec.line ? matcherFromRecipe(spec.line, re2) : null;
  const probe = spec.probe ? matcherFromRecipe(spec.probe, re2) : null;
  const needle = spec.needle;
  let findNeedle: LineMatchers["needle"] = null;
  if (needle && needle.ignoreCase) {
    const folded = new RegExp(needle.text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "gi");
    findNeedle = (text, from) => {
      folded.lastIndex = from;
      return folded.exec(text)?.index ?? -1;
    };
  } else if (needle) findNeedle = (text, from) => text.indexOf(needle.text, from);
  const literalFind = (text: string): [number, number] | null => {
    const at = needle ? text.indexOf(needle.text) : -1;
    return at === -1 ? null : [at, at + needle!.text.length];
  };
  return {
    needle: findNeedle,
    needleLength: needle ? needle.text.length : 0,
    needleSpansLines: needle ? /[\r\n]/.test(needle.text) : false,
    needleDecides: !line && needle !== undefined && !needle.ignoreCase,
    probe: probe ? probe.test : null,
    crMayHide: spec.crMayHide === true,
    probeWidth: spec.probeWidth ?? null,
    test: line ? line.test : () => true,
    find: line ? line.find : literalFind,
    utf8: new TextDecoder("utf-8", { ignoreBOM: true }),
    utf8Strict: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }),
  };
}

/** The scan of one decoded text: where it is, and what was kept so far. */
interface LineScan {
  /** The number of the line starting at offset `at` of the current text. */
  line: number;
  at: number;
  count: number;
  kept: number[];
  next: number;
  shown: ShownLine[];
  /** The last line number put in `shown` (0: none). */
  shownUpTo: number;
  /** Lines up to this number follow a kept match as its context. */
  afterUntil: number;
  room: number;
  truncated: boolean;
  /** Every line before this offset of the current text is a candidate (a probe said so). */
  passUntil: number;
  /**
   * Long lines read without being decoded whole (match_bytes.ts: they cannot match), which
   * context may still show: the text holds each as an empty line, and showLine asks for its
   * content here.
   */
  deferred: DeferredLine[];
}

/**
 * A long line read without being decoded whole (match_bytes.ts): how it is shown, as context or
 * as a literal search's match, built from its bytes only when it is.
 */
interface DeferredLine {
  n: number;
  shown: (matched: boolean) => ShownLine;
}

export function newLineScan(room: number): LineScan {
  return {
    line: 1,
    at: 0,
    count: 0,
    kept: [],
    next: 0,
    shown: [],
    shownUpTo: 0,
    afterUntil: 0,
    room,
    truncated: false,
    passUntil: -1,
    deferred: [],
  };
}

/**
 * The offset of the next line at or after `from` (a line start) that may match, or -1 before
 * `end`. Probes run on windows of at most 64 Ki characters of whole lines: V8 started with
 * --enable-experimental-regexp-engine-on-excessive-backtracks counts backtracks per call, and
 * one call over megabytes falls back to its linear engine, some 30 times slower. A longer line
 * is probed whole, or in overlapping windows when every match fits in the overlap.
 */
export function nextCandidate(
  s: LineScan,
  m: LineMatchers,
  text: string,
  from: number,
  end: number,
): number {
  if (m.needle) {
    const at = m.needle(text, from);
    return at === -1 || at >= end ? -1 : at;
  }
  if (!m.probe || from < s.passUntil) return from;
  const WINDOW = 65536;
  const probe = (a: number, b: number) => {
    const window = text.slice(a, b);
    return (m.crMayHide && window.includes("\r")) || m.probe!(window);
  };
  while (from < end) {
    let to = end;
    let pass: boolean;
    if (from + WINDOW < end) {
      to = text.lastIndexOf("\n", from + WINDOW - 1) + 1;
      if (to <= from) to = Math.min(end, text.indexOf("\n", from + WINDOW) + 1 || end);
      if (to - from > WINDOW && m.probeWidth !== null && m.probeWidth + 2 < WINDOW / 2) {
        // One long line: windows overlapping by a match and a character on each side (for
        // \b and \B), so each match sits whole in one, its neighbours included.
        pass = false;
        for (let a = from; !pass; a += WINDOW - (m.probeWidth + 2)) {
          pass = probe(a, Math.min(to, a + WINDOW));
          if (a + WINDOW >= to) break;
        }
      } else pass = probe(from, to);
    } else pass = probe(from, to);
    if (pass) {
      s.passUntil = to;
      return from;
    }
    from = to;
  }
  return -1;
}

/**
 * Scans the whole lines of `text` in `[start, end)` (`start` a line start; `end` just after a
 * `\n`, or the text's end when it is the file's end): counts and keeps matches, and keeps
 * context. The lines before `start` that context may need must be in `text`. Lines are counted
 * only up to a match (and to the end of a chunk but the last), so a file without a match costs
 * the search for candidates alone.
 */
export function scanLines(
  s: LineScan,
  m: LineMatchers,
  o: MatchOptions,
  text: string,
  start: number,
  end: number,
  final: boolean,
): void {
  s.passUntil = -1;
  s.at = start;
  let pos = start;
  while (pos < end) {
    const at = nextCandidate(s, m, text, pos, end);
    if (at === -1) break;
    const lineStart = at === pos ? pos : Math.max(pos, text.lastIndexOf("\n", at - 1) + 1);
    const nl = text.indexOf("\n", at);
    const lineEnd = nl === -1 || nl >= end ? end : nl;
    const cr = lineEnd === nl && lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13;
    const content = text.slice(lineStart, cr ? lineEnd - 1 : lineEnd);
    pos = lineEnd === nl ? nl + 1 : end;
    if (!m.test(content)) continue;
    passLines(s, o, text, s.at, lineStart);
    keepMatch(s, m, o, text, lineStart, content);
    s.line++;
    s.at = pos;
  }
  if (!final || s.count > 0) {
    passLines(s, o, text, s.at, end);
    s.at = end;
  }
}

/** Moves over the lines in `[from, to)` that hold no candidate, showing those due as context. */
export function passLines(
  s: LineScan,
  o: MatchOptions,
  text: string,
  from: number,
  to: number,
): void {
  while (from < to && s.line <= s.afterUntil) {
    const nl = text.indexOf("\n", from);
    const lineEnd = nl === -1 || nl >= to ? to : nl;
    const cr = lineEnd === nl && lineEnd > from && text.charCodeAt(lineEnd - 1) === 13;
    showLine(s, null, o, text.slice(from, cr ? lineEnd - 1 : lineEnd), false);
    s.line++;
    from = lineEnd === nl ? nl + 1 : to;
  }
  while (from < to) {
    const nl = text.indexOf("\n", from);
    if (nl === -1 || nl >= to) {
      s.line++; // the file's last line, without a terminator
      return;
    }
    s.line++;
    from = nl + 1;
  }
}

/** Counts a matching line at `s.line`; keeps it with its context while the file has room. */
export function keepMatch(
  s: LineScan,
  m: LineMatchers,
  o: MatchOptions,
  text: string,
  lineStart: number,
  content: string,
): void {
  s.count++;
  if (s.kept.length >= o.perFile) {
    if (s.next === 0) s.next = s.line;
    // Past the kept matches, a match is shown only as the context of the last one.
    if (s.line <= s.afterUntil) showLine(s, null, o, content, false);
    return;
  }
  const first = Math.max(s.shownUpTo + 1, s.line - o.context, 1);
  const before: string[] = [];
  // The lines before, read backwards from this one (the caller keeps `context` lines of text).
  for (let end = lineStart; before.length < s.line - first && end > 0;) {
    const start = end >= 2 ? text.lastIndexOf("\n", end - 2) + 1 : 0;
    const cr = end - 1 > start && text.charCodeAt(end - 2) === 13;
    before.push(text.slice(start, cr ? end - 2 : end - 1));
    end = start;
  }
  const line = s.line;
  for (let i = before.length - 1; i >= 0; i--) {
    s.line = line - 1 - i;
    showLine(s, null, o, before[i]!, false);
  }
  s.line = line;
  s.kept.push(line);
  showLine(s, m, o, content, true);
  s.afterUntil = line + o.context;
}

/** Puts line `s.line` in `shown` (cut around its match when long), while there is room. */
export function showLine(
  s: LineScan,
  m: LineMatchers | null,
  o: MatchOptions,
  content: string,
  matched: boolean,
): void {
  s.shownUpTo = s.line;
  if (s.room <= 0) {
    s.truncated = true;
    return;
  }
  s.room--;
  const deferred = content === "" && s.deferred.length > 0
    ? s.deferred.find((d) => d.n === s.line)
    : undefined;
  if (deferred) {
    s.shown.push(deferred.shown(matched && m !== null));
    return;
  }
  // A copy (a flat string of its own): a slice would keep the whole decoded piece it was cut
  // from alive, for every line kept, until the file's answer is sent.
  const own = (part: string) => (" " + part).slice(1);
  if (content.length <= o.maxChars) {
    s.shown.push({ n: s.line, text: own(content) });
    return;
  }
  const [from, to] = (matched && m ? m.find(content) : null) ?? [0, 0];
  const [start, end] = windowBounds(content.length, from, to, o.maxChars);
  const offset = Math.max(0, start - 1);
  s.shown.push({
    n: s.line,
    text: own(content.slice(offset, Math.min(content.length, end + 1))),
    long: { offset, length: content.length, print: fingerprint(content), from, to },
  });
}

/**
 * FNV-1a 32-bit over the UTF-8 bytes of `line`, encoded here (lone surrogates as U+FFFD, as
 * TextEncoder does): linePrint in core/edit/shown_lines.ts, which a test holds this to. The
 * state stays a signed 32-bit integer and each step is written out, not a closure call: the
 * unsigned state (boxed above 2^31) and the call made this 12.7 ns a character, 47 ms of a
 * worker's time per node_modules search over the long minified lines it shows (1.9 ns now).
 */
export function fingerprint(line: string): number {
  return fingerprintMore(2166136261, line);
}

/**
 * fingerprint() continued over `line` from the state `h` (signed or not): a line's print, taken
 * a part at a time (parts cut between characters, never within a surrogate pair).
 */
export function fingerprintMore(h: number, line: string): number {
  const PRIME = 16777619;
  h |= 0;
  const n = line.length;
  for (let i = 0; i < n; i++) {
    let c = line.charCodeAt(i);
    if (c < 0x80) {
      h = Math.imul(h ^ c, PRIME);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const low = line.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x800) h = Math.imul(h ^ (0xc0 | (c >> 6)), PRIME);
    else {
      if (c < 0x10000) h = Math.imul(h ^ (0xe0 | (c >> 12)), PRIME);
      else {
        h = Math.imul(h ^ (0xf0 | (c >> 18)), PRIME);
        h = Math.imul(h ^ (0x80 | ((c >> 12) & 0x3f)), PRIME);
      }
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), PRIME);
    }
    h = Math.imul(h ^ (0x80 | (c & 0x3f)), PRIME);
  }
  return h >>> 0;
}
