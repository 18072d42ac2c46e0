// search_text: grep, rg, ag and ack (and their file-listing modes), translated into one view
// call with content, regex, context and a glob when the options map exactly.

import { formatCall, NOTHING_TO_READ_REASON } from "./policy_messages.ts";
import { type Invocation, readsProjectFiles, type Refusal, refuse } from "./invocation.ts";
import { stdinIsData } from "./redirects.ts";
import { type Opt, scanArgs, type ScanSpec } from "./scan_args.ts";
import { searchRoots } from "./suggest.ts";

// grep/rg/ag/ack options that take a value (separately or attached).
const SEARCH_OPTIONS: Record<string, ScanSpec> = {
  grep: {
    short: "efmABCdD",
    long: [
      "regexp",
      "file",
      "max-count",
      "after-context",
      "before-context",
      "context",
      "label",
      "include",
      "exclude",
      "exclude-dir",
      "exclude-from",
      "binary-files",
      "devices",
      "directories",
      "group-separator",
    ],
  },
  rg: {
    short: "efgtTmABCjMErd",
    long: [
      "regexp",
      "file",
      "glob",
      "iglob",
      "type",
      "type-not",
      "type-add",
      "max-count",
      "after-context",
      "before-context",
      "context",
      "threads",
      "max-columns",
      "encoding",
      "replace",
      "max-depth",
      "sort",
      "sortr",
      "color",
      "colors",
      "context-separator",
      "field-match-separator",
      "path-separator",
      "max-filesize",
      "pre",
      "pre-glob",
      "ignore-file",
    ],
  },
  ag: {
    short: "ABCGgmp",
    long: [
      "after",
      "before",
      "context",
      "file-search-regex",
      "max-count",
      "path-to-ignore",
      "ignore",
      "depth",
    ],
  },
  ack: {
    short: "ABCgm",
    long: [
      "after-context",
      "before-context",
      "context",
      "max-count",
      "type",
      "ignore-dir",
      "ignore-file",
    ],
  },
};

export function judgeSearch(inv: Invocation): Refusal | undefined {
  const family = inv.name === "rg"
    ? "rg"
    : inv.name === "ag"
    ? "ag"
    : inv.name.startsWith("ack")
    ? "ack"
    : "grep";
  const { opts, operands } = scanArgs(inv.args, SEARCH_OPTIONS[family]!);
  const has = (...names: string[]) => opts.some((o) => names.includes(o.name));
  // rg --files, ag -g, ack -f: these list files rather than search them.
  if (
    (family === "rg" && has("--files")) || (family === "ag" && has("-g")) ||
    (family === "ack" && has("-f", "-g"))
  ) {
    const reading = readsProjectFiles(inv, family === "rg" ? operands : [], "list_files", {
      readsStdin: false,
    });
    if (!reading) return undefined;
    const glob = opts.find((o) => o.name === "-g" || o.name === "--glob")?.value;
    const roots = searchRoots(inv, reading.files);
    return refuse(inv, "list_files", {
      calls: roots
        ? [formatCall("view", { ...roots, ...(family === "rg" && glob ? { pattern: glob } : {}) })]
        : [],
    });
  }
  const explicitPattern = has("-e", "--regexp", "-f", "--file");
  const files = explicitPattern ? operands : operands.slice(1);
  const recursive = family !== "grep" ||
    has("-r", "-R", "--recursive", "--dereference-recursive") ||
    opts.some((o) => (o.name === "-d" || o.name === "--directories") && o.value === "recurse");
  const reading = readsProjectFiles(inv, files, "search_text", {
    // rg, ag and ack read a pipe when they have one; grep -r never does.
    readsStdin: recursive && !(family !== "grep" && (inv.cmd.fed || stdinIsData(inv.cmd)))
      ? false
      : undefined,
  });
  if (!reading) return undefined;
  if (reading.nothingToRead) {
    return refuse(inv, "search_text", { reason: NOTHING_TO_READ_REASON });
  }
  const patterns = explicitPattern
    ? opts.filter((o) => o.name === "-e" || o.name === "--regexp").map((o) => o.value ?? "")
    : operands.slice(0, 1).map((w) => w.value);
  const calls: string[] = [];
  const roots = searchRoots(inv, reading.files);
  // -v (inverted) and -f (patterns from a file) have no view equivalent: examples only.
  const translatable = !has("-v", "--invert-match", "-f", "--file") && patterns.length > 0 &&
    patterns.every((p) => p !== "" && !/[\r\n]/.test(p));
  if (roots && translatable) {
    const args: Record<string, unknown> = { path: roots.path };
    Object.assign(args, searchContent(family, inv.name, patterns, has));
    const context = contextLines(opts);
    if (context > 0) args.context = context;
    const glob = roots.pattern ?? searchGlob(family, opts);
    if (glob) args.pattern = glob;
    if (roots.pattern && !recursive) args.max_depth = 1;
    calls.push(formatCall("view", args));
  }
  return refuse(inv, "search_text", { calls });
}

function searchContent(
  family: string,
  name: string,
  patterns: string[],
  has: (...names: string[]) => boolean,
): { content: string; regex: boolean } {
  const fixed = name === "fgrep" || has("-F", "--fixed-strings", "-Q", "--literal");
  const extended = family !== "grep" || name === "egrep" ||
    has("-E", "-P", "--extended-regexp", "--perl-regexp");
  const ignoreCase = has("-i", "--ignore-case") ||
    (has("-S", "--smart-case") && patterns.every((p) => p === p.toLowerCase()));
  const word = has("-w", "--word-regexp");
  const line = has("-x", "--line-regexp");
  const plain = patterns.every((p) => !/[\\^$.*+?()[\]{}|]/.test(p));
  if (patterns.length === 1 && (fixed || plain) && !ignoreCase && !word && !line) {
    return { content: patterns[0]!, regex: false };
  }
  let parts = patterns.map((p) =>
    fixed || plain ? escapeRegex(p) : extended ? p : basicToExtended(p)
  );
  if (word) parts = parts.map((p) => `\\b(?:${p})\\b`);
  if (line) parts = parts.map((p) => `^(?:${p})$`);
  // `|` binds loosest, so alternatives need no group of their own.
  const joined = parts.join("|");
  return { content: `${ignoreCase ? "(?i)" : ""}${joined}`, regex: true };
}

function contextLines(opts: Opt[]): number {
  let n = 0;
  for (const o of opts) {
    if (/^-(A|B|C)$|^--(after|before)?-?context$|^--(after|before)$/.test(o.name)) {
      const v = Number(o.value);
      if (Number.isInteger(v) && v > n) n = v;
    }
  }
  return n;
}

const RG_TYPES: Record<string, string> = {
  ts: "*.{ts,tsx,cts,mts}",
  js: "*.{js,jsx,cjs,mjs}",
  py: "*.{py,pyi}",
  rust: "*.rs",
  go: "*.go",
  java: "*.java",
  c: "*.{c,h}",
  cpp: "*.{cpp,cc,cxx,hpp,hh,h}",
  md: "*.{md,markdown}",
  json: "*.json",
  yaml: "*.{yaml,yml}",
  sh: "*.{sh,bash}",
  html: "*.{html,htm}",
  css: "*.css",
  rb: "*.rb",
  toml: "*.toml",
};

function searchGlob(family: string, opts: Opt[]): string | undefined {
  const globs: string[] = [];
  for (const o of opts) {
    if (o.value === undefined) continue;
    if (family === "grep" && o.name === "--include") globs.push(o.value);
    if (family === "grep" && o.name === "--exclude") globs.push(`!${o.value}`);
    if (family === "rg" && (o.name === "-g" || o.name === "--glob")) globs.push(o.value);
    if (family === "rg" && (o.name === "-t" || o.name === "--type") && RG_TYPES[o.value]) {
      globs.push(RG_TYPES[o.value]!);
    }
    if (family === "ag" && o.name === "-G") return undefined;
  }
  return globs.length === 0 ? undefined : globs.join("|");
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/** grep's basic regular expressions: \| \+ \? \( \) \{ \} are operators, the bare ones literal. */
function basicToExtended(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const n = pattern[i + 1];
    if (c === "\\" && n !== undefined) {
      out += "|+?(){}".includes(n) ? n : c + n;
      i++;
    } else if ("|+?(){}".includes(c)) out += `\\${c}`;
    else out += c;
  }
  return out;
}
