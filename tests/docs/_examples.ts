// Finding the examples the docs show: tool calls written `TOOL {json}` and command lines starting
// with `anchorfs`, in fenced blocks and inline code. Pure text scanning.

import type { CodeSample } from "./_markdown.ts";

export const TOOL_NAMES = [
  "view",
  "text_editor",
  "batch_edit",
  "extract_lines",
  "workdir",
  "shell",
  "jobs",
];

export interface ToolExample {
  tool: string;
  /** The JSON text as written (after the tool name). */
  json: string;
  line: number;
}

/**
 * Every `TOOL {` in the code, with the JSON object that follows it (balanced braces, strings
 * respected). An object the docs leave unfinished (no closing brace) is returned as written.
 */
export function toolExamples(samples: CodeSample[]): ToolExample[] {
  const out: ToolExample[] = [];
  const pattern = new RegExp(`(?<![\\w-])(${TOOL_NAMES.join("|")}) \\{`, "g");
  for (const sample of samples) {
    for (const m of sample.text.matchAll(pattern)) {
      const start = m.index + m[1]!.length + 1;
      const line = sample.line + countNewlines(sample.text.slice(0, start));
      out.push({ tool: m[1]!, json: balancedObject(sample.text, start), line });
    }
  }
  return out;
}

function balancedObject(text: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return text.slice(start);
}

/** An example the docs elide on purpose (`[…]`, `"..."` as a value): shown, not meant to run. */
export function isElided(json: string): boolean {
  return /…|\.\.\./.test(json.replace(/"(?:[^"\\]|\\.)*"/g, '""')) || /^\{\s*$/.test(json);
}

export interface CommandExample {
  /** The words after `anchorfs`, quotes removed. */
  args: string[];
  text: string;
  line: number;
}

/**
 * Command lines that run `anchorfs` (at the start of a code line or inline span, or after `|`,
 * `&&`, `;`, `--`, `$ `, `npx -y`). In fenced blocks a run of three spaces or a `#` ends the
 * command (aligned descriptions, comments); a usage synopsis (`[--bytes N]`, `N|N:hh`) is read with
 * its optional parts present and the first of its alternatives.
 */
export function commandExamples(samples: CodeSample[]): CommandExample[] {
  const out: CommandExample[] = [];
  for (const sample of samples) {
    const lines = sample.fenced ? joinContinuations(sample.text) : [{
      text: sample.text.replace(/\n/g, " "),
      offset: 0,
    }];
    for (const line of lines) {
      // A comment in a fenced block is prose (`# run anchorfs (e.g. ... anchorfs view x)`).
      const text = sample.fenced ? line.text.replace(/(^|\s)#.*$/, "") : line.text;
      const offset = line.offset;
      const starts =
        /(?:^|[|;]\s*|&&\s*|\s--\s+|^\$\s+|npx -y\s+|npx\s+|task\s+)anchorfs(?= |$)(?![:/])/g;
      for (const m of text.matchAll(starts)) {
        let rest = text.slice(m.index + m[0].length);
        if (sample.fenced) rest = rest.split(/ {3,}|\s#/)[0]!;
        const isSynopsis = /(^|\s)\[/.test(rest);
        if (isSynopsis) {
          rest = rest.replace(/\]\.\.\./g, "]").replace(/[[\]]/g, "").replace(/\|[^\s"']+/g, "");
        }
        out.push({
          args: shellWords(rest),
          text: `anchorfs${rest}`.trim(),
          line: sample.line + offset,
        });
      }
    }
  }
  return out;
}

/** Fenced lines, with `\` continuations and indented `[--option]` synopsis lines joined. */
function joinContinuations(body: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  for (const [i, line] of body.split("\n").entries()) {
    const last = out.at(-1);
    if (last && (last.text.endsWith("\\") || /^\s+\[-/.test(line))) {
      last.text = `${last.text.replace(/\\$/, "")} ${line.trim()}`;
    } else out.push({ text: line, offset: i });
  }
  return out;
}

/** Shell words up to the first unquoted `|`, `;`, `&`, `>`, `<` or `)`; quotes removed. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word = (word ?? "") + text.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let value = "";
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && /["\\$`]/.test(text[j + 1] ?? "")) j++;
        value += text[j];
        j++;
      }
      word = (word ?? "") + value;
      i = j;
    } else if (c === "\\") {
      word = (word ?? "") + (text[i + 1] ?? "");
      i++;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (/[|;&><)]/.test(c)) break;
    else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

function countNewlines(text: string): number {
  let n = 0;
  for (const c of text) if (c === "\n") n++;
  return n;
}
