// Viewing one file: every line as `N:hh|content`, ranges by number or verified id, clamping and
// truncation with notices that name the next call, binary and empty files described. What is
// shown is recorded in the session so batch_edit can check replaced ranges against it.

import { AnchorError, isAnchorError } from "../core/errors.ts";
import {
  type Guide,
  guide,
  type GuidePart,
  joinGuide,
  joinGuides,
  step,
} from "../core/next_step.ts";
import {
  assertFresh,
  fnv1a32,
  formatLineId,
  hashLine,
  type LineId,
  renderLine,
} from "../core/edit/line_id.ts";
import {
  countLines,
  type DecodedText,
  decodeUndecoded,
  describeEncoding,
  LineCursor,
  splitLines,
  type TextDoc,
  type UndecodedText,
} from "../core/text/text_file.ts";
import { ByteLineCursor } from "../core/text/byte_lines.ts";
import { freeHandedOver } from "../core/handed_bytes.ts";
import type { Location, Locations } from "./location.ts";
import { fileKey, type Session } from "./session.ts";
import { linePrint } from "../core/edit/shown_lines.ts";
import { readTextBody, readTextSniffed } from "./text_io.ts";
import type { ReadLimits } from "./read_limits.ts";
import { displayPath, type LinePosition } from "./view_args.ts";
import { plural } from "../core/plural.ts";
import { quotePath } from "../core/path/path_quote.ts";
import { JobLogFiles } from "./jobs/job_log_files.ts";
import { emptyLogText, runningLogNotice } from "./jobs/job_text.ts";
import { isTerminal } from "../core/jobs/job_state.ts";
import { onFirstUse } from "../core/first_use.ts";

/** At most this many lines per view; the notice names the next range. */
export const VIEW_MAX_LINES = 2000;
/** At most this many characters of content per view (long lines fill it sooner). */
const VIEW_MAX_CHARS = 120_000;
/** Longer lines are cut in the output (their id still covers the whole line). */
const VIEW_MAX_LINE_CHARS = 4000;

interface ViewFileOptions {
  start?: LinePosition;
  end?: LinePosition;
  /** Show the whole file even when this session viewed it whole before (no re-view delta). */
  full?: boolean;
  /** Show the whole range, without the page limit (`anchorfs view --all`). */
  unpaged?: boolean;
}

/**
 * The view of one file: its lines (or a page of them) with notices, or what a re-view changed.
 * The calls it suggests stay steps in the guide; each adapter writes them in its own syntax.
 */
export async function viewFile(
  locations: Locations,
  session: Session,
  location: Location,
  options: ViewFileOptions,
  limits?: ReadLimits,
): Promise<Guide> {
  const whole = options.start === undefined && options.end === undefined;
  const source = await readViewSource(locations, session, location, whole, limits, options);
  if (!("total" in source)) return source; // a binary file: what it is, and what to use
  try {
    return await viewOfSource(session, location, source, whole, options);
  } finally {
    // What the view keeps (lines, ids, prints) is copied out of the bytes: free them now, not at
    // the next full collection (10,000 views, 50 in flight: malloc 73 -> 20 MB at the peak).
    freeHandedOver(source.bytes);
  }
}

/** The view of a file read (viewFile's text, or its re-view delta). */
async function viewOfSource(
  session: Session,
  location: Location,
  source: ViewSource,
  whole: boolean,
  options: ViewFileOptions,
): Promise<Guide> {
  const shownPath = displayPath(session, location);
  if (source.total === 0) {
    // A job's log is read-only: say whether the job may still print, not how to add lines.
    return location.backend instanceof JobLogFiles
      ? emptyLogText(await location.backend.record(location.path), Date.now())
      : emptyFileText(shownPath, source.size);
  }

  if (whole && options.full !== true && source.lines && source.print) {
    // Awaited only before the first diff the process makes: reViewDelta reads and updates the
    // session's state in one synchronous step.
    if (!renderEditDiff && needsDiff(session, location, source.print)) {
      renderEditDiff = await loadRenderEditDiff();
    }
    const delta = reViewDelta(session, location, shownPath, source.print, source.lines);
    if (delta !== null) return await withRunningJobNotice(location, delta);
  }

  assertRangeIdsFresh(session, location, shownPath, source, options);

  const notices: GuidePart[] = [];
  const total = source.total;
  const start = resolvePosition("start", options.start, 1, total, notices);
  const end = resolvePosition("end", options.end, total, total, notices);
  if (start > end) throw rangeReversed(shownPath, start, end, total);

  const { out, hashes, prints, cutLines, last } = renderRange(source, start, end, options.unpaged);
  session.shown.recordWithPrints(fileKey(location), start, hashes, prints);
  if (whole && start === 1 && last === total && source.lines && source.print) {
    session.views.remember(fileKey(location), source.print, source.lines);
  }

  notices.push(...rangeNotices(shownPath, { start, end, last, total }, options.end !== undefined));
  if (cutLines > 0) {
    notices.push(
      `${plural(cutLines, "line")} longer than ${VIEW_MAX_LINE_CHARS} characters ${
        cutLines === 1 ? "was" : "were"
      } cut in this output (ids still cover the whole line); use the shell to inspect minified ` +
        "content.",
    );
  }
  const notice = formatNotice(source);
  if (notice) notices.push(notice);
  return notices.length > 0
    ? joinGuide(
      out.join("\n"),
      "\n\n",
      joinGuides(notices.map((n) => joinGuide("[", n, "]")), "\n"),
    )
    : joinGuide(out.join("\n"));
}

/**
 * The file as this view reads it; a binary file's description instead (what it is and what to
 * use), which the view returns as its text.
 */
async function readViewSource(
  locations: Locations,
  session: Session,
  location: Location,
  whole: boolean,
  limits: ReadLimits | undefined,
  options: ViewFileOptions,
): Promise<ViewSource | Guide> {
  try {
    // Every line is split only when the view may need them all: a whole view that can show the
    // whole file (and remember it), or a re-view that sends the changes. A longer file's default
    // view shows its first page, like a range.
    if (whole && (options.unpaged === true || session.views.get(fileKey(location)) !== undefined)) {
      return wholeSource(await readTextBody(locations, location, limits, "view"));
    }
    // Else a UTF-8 or Latin-1 file stays bytes until its lines are counted: a range decodes only
    // the lines it shows.
    const file = await readTextSniffed(locations, location, limits, "view");
    if (file.undecoded) {
      return whole && file.undecoded.lineCount <= VIEW_MAX_LINES
        ? wholeSource({ body: decodeUndecoded(file.undecoded), bytes: file.bytes })
        : byteRangeSource(file.undecoded, file.bytes);
    }
    const all = whole && countLines(file.body.text) <= VIEW_MAX_LINES;
    return all ? wholeSource(file) : rangeSource(file);
  } catch (e) {
    if (isAnchorError(e) && e.code === "BINARY_FILE") {
      return e.hintText === undefined
        ? joinGuide(e.message)
        : joinGuide(e.message, "\n", e.hintText);
    }
    throw e;
  }
}

/** A re-view of a running job's log ends with how to follow the job instead. */
async function withRunningJobNotice(location: Location, text: Guide): Promise<Guide> {
  if (!(location.backend instanceof JobLogFiles)) return text;
  const record = await location.backend.record(location.path);
  if (isTerminal(record.status)) return text;
  return joinGuide(text, "\n\n[", runningLogNotice(record, Date.now()), "]");
}

/** An empty file (or one holding only a byte order mark), and how to add its first line. */
function emptyFileText(shownPath: string, size: number): Guide {
  return guide`${quotePath(shownPath)} is empty (0 lines${
    size > 0 ? `, ${plural(size, "byte")}: only a byte order mark` : ""
  }). To add lines: ${
    step("batch_edit", {
      path: quotePath(shownPath),
      operations: [{ op: "insert", anchor: 0, content: "first line" }],
    })
  }`;
}

function rangeReversed(shownPath: string, start: number, end: number, total: number): AnchorError {
  return new AnchorError({
    code: "INVALID_RANGE",
    message: `start (line ${start}) is after end (line ${end}) in ${
      quotePath(shownPath)
    }, which has ${plural(total, "line")}.`,
    hint: guide`${
      step("view", { path: quotePath(shownPath), start: end, end: start })
    } to see that range, or leave end out to read to the end.`,
  });
}

/**
 * What the view shows of the file: a page of a longer range (naming the next one), or the range
 * when it is not the whole file. `last` is the last line rendered.
 */
function rangeNotices(
  shownPath: string,
  range: { start: number; end: number; last: number; total: number },
  explicitEnd: boolean,
): GuidePart[] {
  const { start, end, last, total } = range;
  if (last < end) {
    const size = last - start + 1;
    const nextEnd = Math.min(end, last + size);
    return [
      joinGuide(
        `Showing lines ${start}-${last} of ${plural(total, "line")} (output is limited to ` +
          `${VIEW_MAX_LINES} lines / ~${VIEW_MAX_CHARS / 1000}k characters per view). Next: `,
        step("view", { path: quotePath(shownPath), start: last + 1, end: nextEnd }),
        explicitEnd || nextEnd === total ? "" : ` (the file ends at line ${total})`,
      ),
    ];
  }
  if (start > 1 || end < total) {
    return [`Showing lines ${start}-${end} of ${plural(total, "line")}.`];
  }
  return [];
}

/**
 * Start and end given as line ids must still name the same content; a stale one fails with the
 * report, whose fresh ids then count as shown.
 */
function assertRangeIdsFresh(
  session: Session,
  location: Location,
  shownPath: string,
  source: ViewSource,
  options: ViewFileOptions,
): void {
  const ids: { id: LineId; what: string }[] = [];
  for (const [what, pos] of [["start", options.start], ["end", options.end]] as const) {
    if (pos?.kind === "id") ids.push({ id: pos.id, what });
  }
  const stale = ids.some(({ id }) => {
    const content = source.line(id.line);
    return content === undefined || hashLine(content) !== id.hash;
  });
  if (!stale) return;
  try {
    // The report needs every line (where the content went): split them all, this once.
    assertFresh(shownPath, source.allLines(), ids, "");
  } catch (e) {
    // The report shows current lines with fresh ids: they count as shown, so a batch_edit
    // with them is not refused as "never shown".
    if (isAnchorError(e) && e.detail) session.shown.recordRendered(fileKey(location), e.detail);
    throw e;
  }
}

/** A start or end as a line number within the file; a number outside it is clamped, saying so. */
function resolvePosition(
  what: "start" | "end",
  pos: LinePosition | undefined,
  fallback: number,
  total: number,
  notices: GuidePart[],
): number {
  if (!pos) return fallback;
  if (pos.kind === "id") return pos.id.line;
  let n = pos.value < 0 ? total + pos.value + 1 : pos.value;
  if (n < 1) {
    notices.push(
      `${what} ${pos.value} is before line 1 (the file has ${plural(total, "line")}); ` +
        "used 1.",
    );
    n = 1;
  } else if (n > total) {
    notices.push(
      `${what} ${pos.value} is past the end (the file has ${plural(total, "line")}); ` +
        `used ${total}.`,
    );
    n = total;
  }
  return n;
}

/**
 * Lines `start`..`end` as `N:hh|content`, up to a page (VIEW_MAX_LINES / VIEW_MAX_CHARS) unless
 * `unpaged`, long lines cut; with the hashes and prints to record as shown, and the last line
 * rendered.
 */
function renderRange(source: ViewSource, start: number, end: number, unpaged = false) {
  const out: string[] = [];
  const hashes: number[] = [];
  const prints: number[] = [];
  let chars = 0;
  let cutLines = 0;
  let last = start - 1;
  for (let n = start; n <= end; n++) {
    const content = source.line(n)!;
    const full = n - start >= VIEW_MAX_LINES ||
      (chars > 0 && chars + content.length > VIEW_MAX_CHARS);
    if (full && !unpaged) break;
    const hash = hashLine(content);
    hashes.push(hash);
    prints.push(linePrint(content));
    let rendered = renderLine(n, content);
    if (content.length > VIEW_MAX_LINE_CHARS) {
      cutLines++;
      rendered = `${formatLineId(n, content)}|${
        content.slice(0, VIEW_MAX_LINE_CHARS)
      } … [line cut: ${plural(content.length, "character")}]`;
    }
    chars += Math.min(content.length, VIEW_MAX_LINE_CHARS) + 8;
    out.push(rendered);
    last = n;
  }
  return { out, hashes, prints, cutLines, last };
}

/**
 * The diff of re-views (edit_diff.ts and the diff package), imported by the first re-view of a
 * changed file (issue 26): a server that never re-views one never loads it.
 */
let renderEditDiff: typeof import("../core/edit/edit_diff.ts").renderEditDiff | undefined;
const loadRenderEditDiff = onFirstUse(
  "diff",
  () => import("../core/edit/edit_diff.ts").then(({ renderEditDiff }) => renderEditDiff),
);

/** Whether a re-view of this file with this print shows a diff (reViewDelta's changed branch). */
function needsDiff(session: Session, location: Location, print: string): boolean {
  const before = session.views.get(fileKey(location));
  return before !== undefined && before.print !== print && before.lines !== null;
}

/** Lines a re-view's diff may take before the whole file is cheaper to send. */
const DELTA_MAX_SHARE = 0.6;

/**
 * A whole-file view of a file this session already viewed whole: one line when it is unchanged,
 * else only the hunks changed since (fresh ids). Null when the whole file should be sent: never
 * viewed whole, its lines forgotten to bound memory, or the changes nearly the whole file.
 * Either way the agent now knows every line, so all of them count as shown.
 */
function reViewDelta(
  session: Session,
  location: Location,
  shownPath: string,
  print: string,
  lines: readonly string[],
): Guide | null {
  const key = fileKey(location);
  const before = session.views.get(key);
  if (!before) return null;
  const full = step("view", { path: quotePath(shownPath), full: true });
  let text: Guide;
  if (before.print === print) {
    text = guide`${quotePath(shownPath)} is unchanged since you last viewed it (${
      plural(lines.length, "line")
    }; ids as shown then). ${full} shows it again.`;
  } else {
    if (!before.lines) return null;
    const diff = renderEditDiff!(before.lines, lines);
    let size = 0;
    for (const line of lines) size += Math.min(line.length, VIEW_MAX_LINE_CHARS) + 8;
    if (diff.truncated || diff.text.length > size * DELTA_MAX_SHARE) return null;
    text = joinGuide(
      `${quotePath(shownPath)} changed since you last viewed it (${
        plural(diff.removed, "line")
      } removed, ${plural(diff.added, "line")} added; ${
        plural(lines.length, "line")
      } now). Only the changes, with fresh ids (other lines are as you saw them, renumbered by ` +
        "the hunks above them; ",
      full,
      ` shows it whole):\n${diff.text}`,
    );
  }
  session.shown.recordWholeFile(key, lines);
  session.views.remember(key, print, lines);
  return text;
}

/**
 * The file as a view reads it. A whole view of a file it can show whole splits every line (it
 * shows them all, and remembers them for the next re-view); other views make only the lines they
 * show (LineCursor).
 */
interface ViewSource {
  /** The bytes read (freed once the view is made). */
  bytes: Uint8Array;
  total: number;
  /** The file's size in bytes. */
  size: number;
  encoding: TextDoc["encoding"];
  bom: boolean;
  /** Some line ends with CRLF. */
  crlf: boolean;
  /** Line n (1-based), undefined past the end. */
  line(n: number): string | undefined;
  /** Every line (for a stale-id report). */
  allLines(): readonly string[];
  /** Whole views only: every line, and the bytes' fingerprint for re-views. */
  lines?: readonly string[];
  print?: string;
}

function wholeSource(file: { body: DecodedText; bytes: Uint8Array }): ViewSource {
  const { body, bytes } = file;
  const { lines, eols } = splitLines(body.text);
  return {
    bytes,
    total: lines.length,
    size: bytes.length,
    encoding: body.encoding,
    bom: body.bom,
    crlf: eols.some((e) => e === "\r\n"),
    line: (n) => lines[n - 1],
    allLines: () => lines,
    lines,
    print: `${bytes.length}:${fnv1a32(bytes)}`,
  };
}

function rangeSource(file: { body: DecodedText; bytes: Uint8Array }): ViewSource {
  const { text, encoding, bom } = file.body;
  const cursor = new LineCursor(text);
  return {
    bytes: file.bytes,
    total: countLines(text),
    size: file.bytes.length,
    encoding,
    bom,
    // Every CRLF is a line end ("\r\n" is never inside a line: "\n" always ends one).
    crlf: text.includes("\r\n"),
    line: (n) => cursor.at(n),
    allLines: () => splitLines(text).lines,
  };
}

/** rangeSource over an undecoded UTF-8 or Latin-1 body (ByteLineCursor) of the bytes read. */
function byteRangeSource(body: UndecodedText, bytes: Uint8Array): ViewSource {
  const cursor = new ByteLineCursor(body.bytes, body.encoding);
  return {
    bytes,
    total: body.lineCount,
    size: bytes.length,
    encoding: body.encoding,
    bom: body.bom,
    crlf: body.crlf,
    line: (n) => cursor.at(n),
    allLines: () => splitLines(decodeUndecoded(body).text).lines,
  };
}

/** What is unusual about the file's bytes, said once: what the view leaves out, what edits keep. */
function formatNotice(doc: Pick<ViewSource, "encoding" | "bom" | "crlf">): string {
  const crlf = doc.crlf;
  const encoding = describeEncoding(doc);
  const plainEncoding = encoding === "UTF-8";
  if (plainEncoding && !crlf) return "";
  const hidden = doc.bom && crlf
    ? "the byte order mark and the CRs are not shown; "
    : doc.bom
    ? "the byte order mark is not shown; "
    : crlf
    ? "the CRs are not shown; "
    : "";
  const kept = plainEncoding ? "CRLF" : crlf ? "the encoding and CRLF" : "the encoding";
  const endings = !crlf
    ? ""
    : encoding.includes(" with ")
    ? " and CRLF line endings"
    : " with CRLF line endings";
  return `File is ${encoding}${endings}; ${hidden}edits keep ${kept}.`;
}
