// A file's outline and its named declarations for view: reads the file within the usual limits
// (binary and oversized files are refused as a plain view refuses them), finds its language,
// parses it through the Outliner, and renders the outline, or resolves `symbol` to the lines a
// range view then shows. Files without a grammar get one sentence with the search to use.

import { AnchorError, isAnchorError } from "../../core/errors.ts";
import {
  type Guide,
  guide,
  joinGuide,
  joinGuides,
  type NextStep,
  step,
} from "../../core/next_step.ts";
import { plural } from "../../core/plural.ts";
import { quotePath } from "../../core/path/path_quote.ts";
import { splitLines } from "../../core/text/text_file.ts";
import { allDeclarations, type Declaration } from "../../core/outline/declaration.ts";
import { type Language, languageFor, languageNames } from "../../core/outline/languages.ts";
import { renderOutline } from "../../core/outline/outline_render.ts";
import { findSymbol } from "../../core/outline/symbol_match.ts";
import type { Budget } from "../budget.ts";
import type { Location, Locations } from "../location.ts";
import type { ReadLimits } from "../read_limits.ts";
import type { Session } from "../session.ts";
import { readTextBody } from "../text_io.ts";
import { displayPath } from "../view_args.ts";
import { type FileOutline, type Outliner, PARSE_MAX_BYTES } from "./outliner.ts";
import { ParseTimeout } from "../ports/syntax_parser.ts";

interface OutlineRequest {
  /** A declaration's name: its lines (or, with `outline`, its members' outline). */
  symbol?: string;
  outline: boolean;
  /** Outline only the declarations within these lines. */
  window?: { start: number; end: number };
}

/** What outlining a file gave: text to show, or the lines of the declaration `symbol` named. */
type FileOutlineResult =
  | { kind: "text"; text: Guide }
  | { kind: "symbol"; decl: Declaration; header: string };

/** The outline of one file (or the declaration `symbol` names in it). */
export async function outlineFile(
  locations: Locations,
  session: Session,
  location: Location,
  request: OutlineRequest,
  outliner: Outliner,
  reads?: { limits?: ReadLimits | undefined; budget?: Budget | undefined },
): Promise<FileOutlineResult> {
  const shown = quotePath(displayPath(session, location));
  const name = location.backend.paths.baseName(location.path);
  let language = languageFor(name);
  // An extension the outline does not know: nothing to read. A name without one may be a script.
  if (!language && name.includes(".")) return noGrammar(shown, request);
  let file;
  try {
    file = await readTextBody(locations, location, reads?.limits, "view");
  } catch (e) {
    if (!isAnchorError(e) || e.code !== "BINARY_FILE") throw e;
    const text = e.hintText === undefined
      ? joinGuide(e.message)
      : joinGuide(e.message, "\n", e.hintText);
    if (request.symbol !== undefined) throw e;
    return { kind: "text", text };
  }
  const source = file.body.text;
  language ??= languageFor(name, source.slice(0, source.indexOf("\n") >>> 0));
  if (!language) return noGrammar(shown, request);
  if (file.bytes.length > PARSE_MAX_BYTES) return tooLarge(shown, file.bytes.length, request);
  const budget = reads?.budget;
  const outline = await outliner.outline(
    source,
    language,
    () => (budget?.stopped() ?? null) !== null,
  ).catch((e) => {
    throw e instanceof ParseTimeout ? timedOut(shown, e) : e;
  });
  if (!outline) throw stopped(budget!, shown);
  const { lines } = splitLines(source);
  if (request.symbol === undefined) {
    return { kind: "text", text: render(shown, language, lines, outline, request) };
  }
  const decl = resolveSymbol(shown, outline, request.symbol);
  if (request.outline) {
    return { kind: "text", text: render(shown, language, lines, outline, request, decl) };
  }
  const doc = decl.docStart < decl.start ? ` (its doc comment from line ${decl.docStart})` : "";
  return {
    kind: "symbol",
    decl,
    header: `${shown}: ${decl.kind} ${decl.qualified}, ${lineSpan(decl)}${doc}:`,
  };
}

function render(
  shown: string,
  language: Language,
  lines: readonly string[],
  outline: FileOutline,
  request: OutlineRequest,
  scope?: Declaration,
): Guide {
  return renderOutline({
    path: shown,
    language: language.name,
    totalLines: lines.length,
    line: (n) => lines[n - 1],
    decls: scope ? scope.children : outline.declarations,
    ...(scope ? { scope } : {}),
    ...(request.window
      ? { window: { ...request.window, end: Math.min(request.window.end, lines.length) } }
      : {}),
    truncated: outline.truncated,
    unparsed: outline.unparsed,
  });
}

/** The calls an unknown or ambiguous name's error suggests instead. */
interface SymbolCalls {
  /** The same call with the candidate's name. */
  named(decl: Declaration): NextStep;
  /** The same call by the declaration's lines (for a name that means several). */
  lines(decl: Declaration): NextStep;
}

const viewCalls = (shown: string): SymbolCalls => ({
  named: (d) => step("view", { path: shown, symbol: d.qualified }),
  lines: (d) => step("view", { path: shown, start: d.docStart, end: d.end }),
});

/** The declaration `symbol` names; an unknown or ambiguous name fails with the calls to use. */
function resolveSymbol(
  shown: string,
  outline: FileOutline,
  symbol: string,
  calls: SymbolCalls = viewCalls(shown),
): Declaration {
  const match = findSymbol(outline.declarations, symbol);
  if (match.kind === "found") return match.decl;
  const count = [...allDeclarations(outline.declarations)].length;
  const outlineCall = step("view", { path: shown, outline: true });
  if (match.kind === "ambiguous") {
    const each = match.decls.slice(0, 8).map((d) =>
      guide`${d.kind} ${d.qualified} (${lineSpan(d)}): ${calls.lines(d)}`
    );
    return failSymbol(
      "AMBIGUOUS_SYMBOL",
      `${JSON.stringify(symbol)} names ${
        plural(match.decls.length, "declaration")
      } in ${shown}; name the one you mean by its lines.`,
      joinGuide(joinGuides(each, "; "), "."),
    );
  }
  const closest = match.candidates.map((d) => guide`${calls.named(d)} (${d.kind}, ${lineSpan(d)})`);
  return failSymbol(
    "UNKNOWN_SYMBOL",
    `No declaration named ${JSON.stringify(symbol)} in ${shown} (${plural(count, "declaration")}).`,
    closest.length > 0
      ? guide`Closest: ${joinGuides(closest, ", ")}; every name: ${outlineCall}.`
      : guide`${shown} has no declarations the outline lists; read it with ${
        step("view", { path: shown })
      }.`,
  );
}

/**
 * The lines (doc comment included) of the declaration `symbol` names in a file already read:
 * for extract_lines' from_symbol. Fails like view's symbol, with `calls` as the next steps.
 */
export async function symbolLines(
  outliner: Outliner,
  file: { shown: string; baseName: string; text: string },
  symbol: string,
  calls: SymbolCalls,
): Promise<{ start: number; end: number }> {
  const language = languageFor(file.baseName, file.text.slice(0, file.text.indexOf("\n") >>> 0));
  if (!language) noGrammar(file.shown, { outline: false, symbol });
  if (file.text.length > PARSE_MAX_BYTES) {
    tooLarge(file.shown, file.text.length, { outline: false, symbol });
  }
  const outline = (await outliner.outline(file.text, language!).catch((e) => {
    throw e instanceof ParseTimeout ? timedOut(file.shown, e) : e;
  }))!;
  const decl = resolveSymbol(file.shown, outline, symbol, calls);
  return { start: decl.docStart, end: decl.end };
}

const lineSpan = (d: Declaration) =>
  d.end > d.start ? `lines ${d.start}-${d.end}` : `line ${d.start}`;

function failSymbol(
  code: "AMBIGUOUS_SYMBOL" | "UNKNOWN_SYMBOL",
  message: string,
  hint: Guide,
): never {
  throw new AnchorError({ code, message, hint });
}

/** A regex that finds the definitions of most languages, for files the outline cannot read. */
const DEFINITIONS_REGEX = "^\\s*(export |pub |def |func |fn |class |function |interface |type )";

/** One sentence for a file without a grammar: what the outline reads, and the search to use. */
function noGrammar(shown: string, request: OutlineRequest): FileOutlineResult {
  const markdown = /\.(md|markdown|mdx|rst|adoc)$/i.test(shown);
  const search = step("view", {
    path: shown,
    content: markdown ? "^#+ " : DEFINITIONS_REGEX,
    regex: true,
  });
  const message = `${shown} has no outline: the outline reads ${languageNames()} files.`;
  const instead = guide`Find its ${markdown ? "headings" : "definitions"} with a search: ${search}`;
  if (request.symbol !== undefined && !request.outline) {
    throw new AnchorError({ code: "NO_GRAMMAR", message, hint: joinGuide(instead, ".") });
  }
  return { kind: "text", text: joinGuide(message, " ", instead, ".") };
}

function tooLarge(shown: string, size: number, request: OutlineRequest): FileOutlineResult {
  const message = `${shown} is too large to outline (${(size / 1024 / 1024).toFixed(1)} MB; the ` +
    `outline parses files up to ${PARSE_MAX_BYTES / 1024 / 1024} MB).`;
  const hint = guide`Find its definitions with a search: ${
    step("view", { path: shown, content: DEFINITIONS_REGEX, regex: true })
  }, or read a range: ${step("view", { path: shown, start: 1, end: 200 })}.`;
  if (request.symbol !== undefined) {
    throw new AnchorError({ code: "FILE_TOO_LARGE", message, hint });
  }
  return { kind: "text", text: joinGuide(message, " ", hint) };
}

/** The parser's own deadline passed (a file it cannot get through): search it instead. */
function timedOut(shown: string, e: ParseTimeout): AnchorError {
  return new AnchorError({
    code: "PARSE_TIMEOUT",
    message: `Parsing ${shown} for its outline took longer than ${e.deadline}; the parse was ` +
      "stopped (the file itself is unchanged).",
    hint: guide`Repeating the call would stop the same way. Find its definitions with a search: ${
      step("view", { path: shown, content: DEFINITIONS_REGEX, regex: true })
    }, or read a range: ${step("view", { path: shown, start: 1, end: 200 })}.`,
    fault: "environment",
  });
}

function stopped(budget: Budget, shown: string): AnchorError {
  const stop = budget.stopped() ?? "deadline";
  return new AnchorError({
    code: stop === "cancelled" ? "CANCELLED" : "DEADLINE_EXCEEDED",
    message: `${budget.describe(stop)} while ${shown} was parsed for its outline.`,
    hint: stop === "cancelled"
      ? "Nothing to do unless the outline is still wanted: then repeat the same call."
      : guide`The arguments are fine: retry the same call, or read a range: ${
        step("view", { path: shown, start: 1, end: 200 })
      }.`,
    fault: "environment",
  });
}
