// list_files: ls and its kin, tree, find and fd, translated into a view listing call. The
// commands find -exec and fd -x run are judged in turn (through Invocation.judgeInner).

import { formatCall } from "./policy_messages.ts";
import type { Word } from "../parse/mod.ts";
import { type Invocation, readsProjectFiles, type Refusal, refuse } from "./invocation.ts";
import { scanArgs } from "./scan_args.ts";
import { isLiteralPath, searchRoots, splitGlob, toolPath } from "./suggest.ts";

export function judgeList(inv: Invocation): Refusal | undefined {
  const isTree = inv.name === "tree";
  const { opts, operands } = scanArgs(
    inv.args,
    isTree ? { short: "LPIo", long: ["filelimit", "timefmt", "sort", "charset"] } : {
      short: "IwT",
      long: [
        "ignore",
        "hide",
        "width",
        "tabsize",
        "format",
        "sort",
        "time",
        "time-style",
        "block-size",
        "color",
        "indicator-style",
        "quoting-style",
      ],
    },
  );
  if (inv.cmd.fed && operands.length === 0) return undefined; // `x | ls`: ls ignores the pipe
  const reading = readsProjectFiles(inv, operands, "list_files", { readsStdin: false });
  if (!reading) return undefined;
  const has = (...names: string[]) => opts.some((o) => names.includes(o.name));
  const hidden = has("-a", "-A", "--all", "--almost-all");
  const calls = reading.files.filter(isLiteralPath).slice(0, 3).map((f) => {
    const { dir, pattern } = splitGlob(f, inv.scope.paths);
    const args: Record<string, unknown> = { path: toolPath(inv, dir) };
    if (pattern) args.pattern = pattern;
    if (isTree) {
      const level = opts.find((o) => o.name === "-L")?.value;
      if (level && /^\d+$/.test(level)) args.max_depth = Number(level);
      const only = opts.find((o) => o.name === "-P")?.value;
      if (only) args.pattern = only;
    } else if (!has("-R", "--recursive")) {
      args.max_depth = 1;
    }
    if (hidden) args.include_hidden = true;
    return formatCall("view", args);
  });
  return refuse(inv, "list_files", { calls });
}

export function judgeFind(inv: Invocation): Refusal | undefined {
  if (inv.name !== "find") return judgeFd(inv);
  const args = inv.args;
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  while (i < args.length && /^-([HLP]|D|O\d*)$/.test(args[i]!.value)) {
    i += args[i]!.value === "-D" ? 2 : 1;
  }
  const paths: string[] = [];
  while (i < args.length && !/^[-(!]/.test(args[i]!.value) && args[i]!.value !== ")") {
    paths.push(args[i]!.value);
    i++;
  }
  const expr = args.slice(i);
  let acts = false;
  const names: string[] = [];
  let maxDepth: number | undefined;
  /** Tests of this find that a view call cannot express (then the find runs). */
  const unmatched: string[] = [];
  for (let j = 0; j < expr.length; j++) {
    const v = expr[j]!.value;
    if (v === "-delete") acts = true;
    if (v === "-exec" || v === "-execdir" || v === "-ok" || v === "-okdir") {
      let end = j + 1;
      while (end < expr.length && expr[end]!.value !== ";" && expr[end]!.value !== "+") end++;
      const inner = expr.slice(j + 1, end);
      // `find … -exec grep -l x {} +`: the inner command is judged like any other, with the
      // found files as its operands.
      const refusal = inv.judgeInner(inner);
      if (refusal) return refusal;
      acts = true;
      j = end;
      continue;
    }
    if ((v === "-name" || v === "-iname") && expr[j + 1]) {
      const negated = j > 0 && ["!", "-not"].includes(expr[j - 1]!.value);
      // A view glob without "/" matches names at any depth, like -name.
      names.push(`${negated ? "!" : ""}${expr[j + 1]!.value}`);
    }
    if ((v === "-path" || v === "-ipath" || v === "-wholename") && expr[j + 1]) {
      const negated = j > 0 && ["!", "-not"].includes(expr[j - 1]!.value);
      names.push(`${negated ? "!" : ""}${pathGlob(expr[j + 1]!.value)}`);
      j++;
      continue;
    }
    if (v === "-maxdepth" && expr[j + 1] && /^\d+$/.test(expr[j + 1]!.value)) {
      maxDepth = Number(expr[j + 1]!.value);
    }
    const dropped = findTestWithoutView(v, expr[j + 1]?.value);
    if (dropped) {
      unmatched.push(dropped.text);
      j += dropped.skip;
    }
  }
  if (acts) return undefined; // an action over files (delete, chmod, rm), not a listing
  // -newer, -mtime, -size, -perm …: view cannot filter by them, and the listing only reads, so
  // it runs (a refusal would cost the call that runs it anyway, or a file written to list it).
  if (unmatched.length > 0) return undefined;
  const reading = readsProjectFiles(inv, paths.map(literalWord), "list_files", {
    readsStdin: false,
  });
  if (!reading) return undefined;
  const roots = searchRoots(inv, reading.files);
  if (!roots) return refuse(inv, "list_files");
  const args2: Record<string, unknown> = { ...roots };
  if (names.length > 0) args2.pattern = names.join("|");
  if (maxDepth !== undefined) args2.max_depth = maxDepth;
  return refuse(inv, "list_files", { calls: [formatCall("view", args2)] });
}

/**
 * find's `-path` pattern as a view glob relative to the root: `./node_modules/*` is
 * `node_modules/**` (find's `*` crosses `/`), `*\/dist/*` is `**\/dist/**`.
 */
function pathGlob(pattern: string): string {
  let glob = pattern.replace(/^\.\//, "");
  if (glob.startsWith("*/")) glob = `**/${glob.slice(2)}`;
  if (glob.endsWith("/*")) glob = `${glob.slice(0, -2)}/**`;
  return glob;
}

/** find tests a view call expresses: names, paths, depth, file type, printing and grouping. */
const FIND_MAPPED = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-maxdepth",
  "-type",
  "-print",
  "-print0",
  "-o",
  "-or",
  "-a",
  "-and",
  "!",
  "-not",
  "(",
  ")",
]);
/** find tests with no argument (everything else named here takes one). */
const FIND_NULLARY = new Set([
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-prune",
  "-quit",
  "-ls",
  "-xdev",
  "-mount",
  "-depth",
  "-follow",
  "-daystart",
]);

/** A find test (with its argument) that view cannot express, or undefined. */
function findTestWithoutView(
  v: string,
  next: string | undefined,
): { text: string; skip: number } | undefined {
  if (!v.startsWith("-") || v.length < 2 || FIND_MAPPED.has(v)) return undefined;
  if (FIND_NULLARY.has(v) || next === undefined) return { text: v, skip: 0 };
  return { text: `${v} ${next}`, skip: 1 };
}

function judgeFd(inv: Invocation): Refusal | undefined {
  const { opts, operands } = scanArgs(inv.args, {
    short: "etdEjSxXcoL",
    long: [
      "extension",
      "type",
      "max-depth",
      "min-depth",
      "exact-depth",
      "exclude",
      "threads",
      "size",
      "changed-within",
      "changed-before",
      "exec",
      "exec-batch",
      "color",
      "owner",
      "base-directory",
      "search-path",
      "max-results",
    ],
  });
  const exec = opts.find((o) => ["-x", "-X", "--exec", "--exec-batch"].includes(o.name));
  if (exec) {
    // fd's exec command is the rest of the line; our scan put its first word in the value.
    const index = inv.args.findIndex((w) =>
      ["-x", "-X", "--exec", "--exec-batch"].includes(w.value)
    );
    const inner = inv.args.slice(index + 1).filter((w) => w.value !== ";");
    return inv.judgeInner(inner);
  }
  const reading = readsProjectFiles(inv, operands.slice(1), "list_files", { readsStdin: false });
  if (!reading) return undefined;
  const roots = searchRoots(inv, reading.files);
  if (!roots) return refuse(inv, "list_files");
  const args: Record<string, unknown> = { ...roots };
  const globs: string[] = [];
  const ext = opts.filter((o) => o.name === "-e" || o.name === "--extension").map((o) => o.value);
  const pattern = operands[0]?.value;
  const glob = opts.some((o) => o.name === "-g" || o.name === "--glob");
  if (pattern && glob) globs.push(pattern);
  else if (pattern && /^[\w.-]+$/.test(pattern)) globs.push(`*${pattern}*`);
  for (const e of ext) if (e) globs.push(`*.${e}`);
  if (globs.length > 0) args.pattern = globs.join("|");
  const depth = opts.find((o) => o.name === "-d" || o.name === "--max-depth")?.value;
  if (depth && /^\d+$/.test(depth)) args.max_depth = Number(depth);
  if (opts.some((o) => o.name === "-H" || o.name === "--hidden")) args.include_hidden = true;
  return refuse(inv, "list_files", { calls: [formatCall("view", args)] });
}

function literalWord(value: string): Word {
  return { raw: value, value, quoted: false, expands: false, glob: false };
}
