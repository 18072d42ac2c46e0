// The outline as text: one row per declaration (`24:3f class JobManager 24-45 extends Base`),
// nested by indentation, within a byte budget. Past the budget it drops detail in steps (member
// signatures, then all signatures, then the deepest members, then the last rows) and says what
// it left out and the call that shows it. The calls stay steps for each adapter to write. Pure.

import { formatLineId } from "../edit/line_id.ts";
import { type Guide, guide, type GuidePart, joinGuide, joinGuides, step } from "../next_step.ts";
import { plural } from "../plural.ts";
import { allDeclarations, type Declaration } from "./declaration.ts";

// Exported for tests.
/** An outline's rows fit in this many bytes (a 1,000-line file's whole outline is ≤ 4 KB). */
export const OUTLINE_MAX_BYTES = 4096;
/** What the header and notices may add on top of the rows. */
const PROSE_BYTES = 600;

interface OutlineView {
  /** The file as shown (quoted when it must be). */
  path: string;
  language: string;
  totalLines: number;
  /** Line n's content (1-based), for the rows' ids. */
  line: (n: number) => string | undefined;
  /** The declarations to show: the file's, or the members of `scope`. */
  decls: readonly Declaration[];
  /** The declaration whose members these are (`outline` with `symbol`). */
  scope?: Declaration;
  /** Only declarations within these lines are shown (`outline` with start/end). */
  window?: { start: number; end: number };
  /** The parser dropped declarations past its limit. */
  truncated?: boolean;
  /** Lines that did not parse (left out of the outline). */
  unparsed?: readonly { start: number; end: number }[];
  maxBytes?: number;
}

interface Row {
  decl: Declaration;
  depth: number;
}

function rowsOf(decls: readonly Declaration[], depth: number, out: Row[]): Row[] {
  for (const decl of decls) {
    out.push({ decl, depth });
    rowsOf(decl.children, depth + 1, out);
  }
  return out;
}

function rowText(view: OutlineView, row: Row, signature: boolean, hidden: number): string {
  const d = row.decl;
  const id = formatLineId(d.start, view.line(d.start) ?? "");
  const range = d.end > d.start ? `${d.start}-${d.end}` : `${d.start}`;
  const sig = signature && d.signature ? ` ${d.signature}` : "";
  const more = hidden > 0 ? ` +${plural(hidden, "member")}` : "";
  return `${"  ".repeat(row.depth)}${id} ${d.kind} ${d.qualified} ${range}${sig}${more}`;
}

/** How much was left out to fit the budget. */
interface Fitted {
  lines: string[];
  /** Some signatures were dropped. */
  signatures: boolean;
  /** A container whose members were left out (the first), and how many containers. */
  hiddenIn?: Declaration;
  hiddenCount: number;
  /** Rows cut from the end, and the first line of the first one cut. */
  cut: number;
  cutFrom?: number;
}

const bytes = (lines: readonly string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/** The most detailed rows that fit in `budget` bytes. */
function fit(view: OutlineView, rows: readonly Row[], budget: number): Fitted {
  const all = (sig: (r: Row) => boolean) => rows.map((r) => rowText(view, r, sig(r), 0));
  const full = all(() => true);
  if (bytes(full) <= budget) return { lines: full, signatures: false, hiddenCount: 0, cut: 0 };
  for (const sig of [(r: Row) => r.depth === 0, () => false]) {
    const lines = all(sig);
    if (bytes(lines) <= budget) return { lines, signatures: true, hiddenCount: 0, cut: 0 };
  }
  const deepest = Math.max(...rows.map((r) => r.depth));
  for (let depth = deepest - 1; depth >= 0; depth--) {
    const kept = rows.filter((r) => r.depth <= depth);
    const hidden = kept.filter((r) => r.depth === depth && r.decl.children.length > 0);
    const lines = kept.map((r) =>
      rowText(view, r, false, r.depth === depth ? r.decl.children.length : 0)
    );
    if (bytes(lines) <= budget || depth === 0) {
      const out: Fitted = {
        lines,
        signatures: true,
        hiddenCount: hidden.length,
        cut: 0,
        ...(hidden[0] ? { hiddenIn: hidden[0].decl } : {}),
      };
      return depth === 0 ? cutToBudget(out, kept, budget) : out;
    }
  }
  return cutToBudget(
    { lines: all(() => false), signatures: true, hiddenCount: 0, cut: 0 },
    rows,
    budget,
  );
}

/** The rows that fit, the rest counted (top-level rows only are left at this point). */
function cutToBudget(fitted: Fitted, rows: readonly Row[], budget: number): Fitted {
  let used = 0;
  let n = 0;
  while (n < fitted.lines.length && used + fitted.lines[n]!.length + 1 <= budget) {
    used += fitted.lines[n]!.length + 1;
    n++;
  }
  if (n === fitted.lines.length) return fitted;
  return {
    ...fitted,
    lines: fitted.lines.slice(0, n),
    cut: fitted.lines.length - n,
    cutFrom: rows[n]!.decl.start,
  };
}

/** The declarations within the window (a declaration is in when it overlaps it). */
function inWindow(decls: readonly Declaration[], window: OutlineView["window"]): Declaration[] {
  if (!window) return [...decls];
  return decls.filter((d) => d.end >= window.start && d.start <= window.end);
}

/** An example name for the symbol call: the first method or function, else the first name. */
function exampleName(decls: readonly Declaration[]): string | undefined {
  const all = [...allDeclarations(decls)];
  return (all.find((d) => d.kind === "method" || d.kind === "function") ?? all[0])?.qualified;
}

/** The outline of a file (or of one declaration's members) as text with its next steps. */
export function renderOutline(view: OutlineView): Guide {
  const decls = inWindow(view.decls, view.window);
  const count = [...allDeclarations(decls)].length;
  const what = view.scope
    ? `${view.scope.kind} ${view.scope.qualified} (lines ${view.scope.start}-${view.scope.end}), ${
      plural(count, "declaration")
    } in it`
    : `${view.language}, ${plural(view.totalLines, "line")}, ${plural(count, "declaration")}${
      view.window ? ` in lines ${view.window.start}-${view.window.end}` : ""
    }`;
  if (count === 0) return emptyOutline(view, what);
  const fitted = fit(
    view,
    rowsOf(decls, 0, []),
    (view.maxBytes ?? OUTLINE_MAX_BYTES) - PROSE_BYTES,
  );
  const example = exampleName(decls);
  const header = guide`${view.path}: ${what}. Rows: line id, kind, name, lines, signature.${
    example
      ? guide` A name as symbol shows its lines with ids: ${
        step("view", { path: view.path, symbol: example })
      }.`
      : ""
  }`;
  const notices = outlineNotices(view, fitted);
  return joinGuide(
    header,
    "\n",
    fitted.lines.join("\n"),
    notices.length > 0
      ? joinGuide("\n\n", joinGuides(notices.map((n) => guide`[${n}]`), "\n"))
      : "",
  );
}

function emptyOutline(view: OutlineView, what: string): Guide {
  return guide`${view.path}: ${what}: no classes, functions, methods, types or constants to list${
    view.unparsed?.length ? " (some lines do not parse)" : ""
  }. Read it with ${step("view", { path: view.path })}.`;
}

function outlineNotices(view: OutlineView, fitted: Fitted): GuidePart[] {
  const notices: GuidePart[] = [];
  const limit = `${(view.maxBytes ?? OUTLINE_MAX_BYTES) / 1024} KB`;
  if (fitted.hiddenIn) {
    notices.push(
      guide`Members of ${
        plural(fitted.hiddenCount, "declaration")
      } left out to fit ${limit} (+N members); outline one: ${
        step("view", { path: view.path, outline: true, symbol: fitted.hiddenIn.qualified })
      }.`,
    );
  } else if (fitted.signatures) notices.push(`Some signatures left out to fit ${limit}.`);
  if (fitted.cut > 0 && fitted.cutFrom !== undefined) {
    notices.push(
      guide`${plural(fitted.cut, "more declaration")} from line ${fitted.cutFrom} not shown: ${
        step("view", { path: view.path, outline: true, start: fitted.cutFrom })
      }.`,
    );
  }
  if (view.truncated) {
    notices.push("The file has more declarations than one outline reads; the last are not listed.");
  }
  for (const r of view.unparsed ?? []) {
    notices.push(
      guide`${
        r.end > r.start ? `Lines ${r.start}-${r.end} do` : `Line ${r.start} does`
      } not parse (a syntax error, or syntax newer than the grammar): declarations there may be missing; read ${
        r.end > r.start ? "them" : "it"
      }: ${step("view", { path: view.path, start: r.start, end: r.end })}.`,
    );
  }
  return notices;
}
