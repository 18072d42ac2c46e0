// Reading the repository's Markdown for the docs tests: which files count as documentation, their
// headings' anchors (GitHub's rule), their links, and the code they show (fenced blocks and inline
// code spans), each with the line it starts on. Text only: no Markdown library.

import { REPO_ROOT } from "../_harness.ts";

export interface DocFile {
  /** Path relative to the repository root, e.g. "docs/tools.md". */
  path: string;
  text: string;
}

/** README.md and every Markdown file under docs/ (sorted). */
export async function readDocs(): Promise<DocFile[]> {
  const paths = ["README.md"];
  for await (const entry of Deno.readDir(`${REPO_ROOT}/docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) paths.push(`docs/${entry.name}`);
  }
  paths.sort();
  return await Promise.all(
    paths.map(async (path) => ({ path, text: await Deno.readTextFile(`${REPO_ROOT}/${path}`) })),
  );
}

/** The text with fenced code blocks blanked out (line count kept), for prose-only scans. */
export function withoutFences(text: string): string {
  let inFence = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      inFence = !inFence;
      return "";
    }
    return inFence ? "" : line;
  }).join("\n");
}

/** GitHub's heading anchor: lower case, punctuation dropped (not - or _), spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "").replace(/ /g, "-");
}

/** Every anchor a file's headings define, with GitHub's -1, -2 suffixes for repeats. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(text).split("\n")) {
    const m = /^#{1,6} (.+?)#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)` outside code. */
export function links(text: string): Link[] {
  const out: Link[] = [];
  const prose = withoutFences(text).replace(/`[^`]*`/g, (s) => s.replace(/[^\n]/g, " "));
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    out.push({ target: m[1]!, line: lineAt(prose, m.index) });
  }
  return out;
}

export interface CodeSample {
  /** The code: a fenced block's body or an inline span's content (newlines kept). */
  text: string;
  line: number;
  fenced: boolean;
}

/**
 * Fenced blocks and inline code spans. In table rows `\|` is Markdown's escape for a pipe; it is
 * read back as `|` so JSON in a table cell parses as written.
 */
export function codeSamples(text: string): CodeSample[] {
  const out: CodeSample[] = [];
  const lines = text.split("\n");
  const prose: string[] = [];
  let fence: { start: number; body: string[] } | undefined;
  for (const [i, line] of lines.entries()) {
    if (/^\s*```/.test(line)) {
      if (fence) {
        out.push({ text: fence.body.join("\n"), line: fence.start + 1, fenced: true });
        fence = undefined;
      } else fence = { start: i + 1, body: [] };
      prose.push("");
      continue;
    }
    if (fence) {
      fence.body.push(line);
      prose.push("");
    } else prose.push(line.startsWith("|") ? line.replace(/\\\|/g, "|") : line);
  }
  const joined = prose.join("\n");
  for (const m of joined.matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)) {
    out.push({ text: m[2]!, line: lineAt(joined, m.index), fenced: false });
  }
  return out;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
