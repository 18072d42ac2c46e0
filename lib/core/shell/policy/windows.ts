// The shell policy for cmd.exe and PowerShell command lines: the native commands agents reach
// for instead of the tools (type, more, findstr, dir /s; Get-Content, Select-String,
// Get-ChildItem -Recurse, Start-Sleep) get the same rules and messages as cat/grep/find/sleep.
// A light reading (quotes, pipes, command separators, redirections), not a full parser: when in
// doubt it allows, since refusing a working command costs more than missing a misuse. As with
// bash, a `cd` earlier in the line is followed, and reading only files anchorfs cannot read
// itself (the caller's `outside`) is the shell's job, so it is allowed.

import { formatCall, NEVER_ENDS_REASONS } from "./policy_messages.ts";
import { joinOn, type Refusal } from "./invocation.ts";
import { type PathRules, WINDOWS_PATHS } from "../../path/path_rules.ts";

type WindowsShell = "cmd" | "powershell";

/** What the caller knows (JudgeOptions), and where the line is after the `cd`s judged so far. */
interface LineContext {
  /** How the machine joins paths: Windows rules unless the caller says otherwise. */
  paths: PathRules;
  /** Files found to be ones anchorfs cannot read itself, named as `place` names them. */
  outside?: ReadonlySet<string>;
  /** The directory a `cd` earlier in the line moved to (as written, joined). */
  cwd?: string;
}

/** `path` as seen from the start of the line (after its `cd`s), as the machine joins paths. */
function place(ctx: LineContext, path: string): string {
  return joinOn(ctx.paths, ctx.cwd, path);
}

/** Globs and paths only known at run time (`%X%`, `!X!`, `$x`) are not looked up or joined. */
function isLiteral(path: string): boolean {
  return !/[*?%$!]/.test(path);
}

/**
 * `refusal` of a read, search or listing of `files`, naming them joined (Refusal.files) for a
 * caller that can look them up; undefined when every one is a file the caller found anchorfs
 * cannot read itself (too big, not a regular file): no tool can do it instead of the shell.
 */
function refuseReading(ctx: LineContext, files: string[], refusal: Refusal): Refusal | undefined {
  if (files.length === 0 || !files.every(isLiteral)) return refusal;
  const names = files.map((f) => place(ctx, f));
  if (ctx.outside && names.every((n) => ctx.outside!.has(n))) return undefined;
  return { ...refusal, files: names };
}

const CD_NAMES = {
  cmd: new Set(["cd", "chdir", "pushd"]),
  powershell: new Set(["cd", "chdir", "sl", "set-location", "pushd", "push-location"]),
};

/** The directory a `cd` stage moves to (`cd /d C:\x`, `Set-Location -Path x`), if literal. */
function cdTarget(stage: Stage, shell: WindowsShell): string | undefined {
  const name = (stage.words[0] ?? "").toLowerCase();
  if (!CD_NAMES[shell].has(name)) return undefined;
  const operands = stage.words.slice(1).filter((w) =>
    shell === "cmd" ? w.toLowerCase() !== "/d" : !/^-(path|literalpath)$/i.test(w)
  );
  const [target] = operands;
  return operands.length === 1 && isLiteral(target!) && !target!.startsWith("-")
    ? target
    : undefined;
}

interface Stage {
  /** The simple command as written. */
  text: string;
  /** Words with quotes removed. */
  words: string[];
  /** Its stdin comes from the previous pipeline stage. */
  fed: boolean;
  /** Its stdout goes into a file (`> out.txt`, `| Out-File x`, `| Set-Content x`). */
  toFile: boolean;
  /** `< file` (cmd). */
  stdinFile?: string;
  /** The line has a loop (`for … do`, `while`, `foreach`, `do … until`): a sleep paces a poll. */
  inLoop: boolean;
}

/** Splits a line into pipeline stages, outside quotes (`"` for cmd, `"` and `'` for PowerShell). */
function stages(line: string, shell: WindowsShell): Stage[] | undefined {
  const quotes = shell === "cmd" ? `"` : `"'`;
  const pieces: { text: string; sep: string }[] = [];
  let current = "";
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      current += c;
      // PowerShell doubles a quote to escape it inside quotes; both shells end at the partner.
      if (c === quote) quote = "";
      continue;
    }
    if (quotes.includes(c)) {
      quote = c;
      current += c;
      continue;
    }
    if (shell === "cmd" && c === "^" && i + 1 < line.length) {
      current += line[++i];
      continue;
    }
    const two = line.slice(i, i + 2);
    const sep = two === "&&" || two === "||"
      ? two
      : c === "|" || c === "&" && shell === "cmd" || c === ";" && shell === "powershell" ||
          c === "\n"
      ? c
      : "";
    if (sep) {
      pieces.push({ text: current, sep });
      current = "";
      i += sep.length - 1;
      continue;
    }
    current += c;
  }
  if (quote) return undefined;
  pieces.push({ text: current, sep: "" });
  const out: Stage[] = [];
  const inLoop = /(^|[\s;(){}&|])(for|foreach|while|do|until)([\s({]|$)/i.test(line);
  for (const [i, piece] of pieces.entries()) {
    const text = piece.text.trim();
    if (text === "") continue;
    const fed = i > 0 && pieces[i - 1]!.sep === "|";
    const next = piece.sep === "|" ? pieces[i + 1]?.text.trim().toLowerCase() ?? "" : "";
    const { words, toFile, stdinFile } = wordsOf(text, shell);
    const stage: Stage = {
      text,
      words,
      fed,
      toFile: toFile || /^(out-file|set-content|add-content|tee-object)\b/.test(next),
      inLoop,
    };
    if (stdinFile !== undefined) stage.stdinFile = stdinFile;
    out.push(stage);
  }
  return out;
}

function wordsOf(
  text: string,
  shell: WindowsShell,
): { words: string[]; toFile: boolean; stdinFile?: string } {
  const raw = text.match(/"[^"]*"|'[^']*'|[^\s"']+(?:(?:"[^"]*"|'[^']*')[^\s"']*)*/g) ?? [];
  const words: string[] = [];
  let toFile = false;
  let stdinFile: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const w = raw[i]!;
    const redirect = /^(\d?)(>>?|<)(.*)$/.exec(w);
    if (redirect) {
      const target = redirect[3] || raw[++i] || "";
      const name = unquote(target, shell);
      if (redirect[2] === "<") stdinFile = name;
      else if (redirect[1] !== "2" && !/^(nul|\$null)$/i.test(name) && !name.startsWith("&")) {
        toFile = true;
      }
      continue;
    }
    words.push(unquote(w, shell));
  }
  return stdinFile === undefined ? { words, toFile } : { words, toFile, stdinFile };
}

function unquote(word: string, shell: WindowsShell): string {
  return shell === "cmd" ? word.replaceAll('"', "") : word.replace(/^(["'])(.*)\1$/, "$2");
}

/** Device names and pseudo-files that are not project text. */
function isDevice(path: string): boolean {
  return /^(nul|con|prn|aux|\$null)$/i.test(path) ||
    /^[a-z]+:$/i.test(path) && !/^[a-z]:$/i.test(path);
}

const view = (args: Record<string, unknown>) => formatCall("view", args);

/**
 * Judges a cmd.exe or PowerShell line; the first offending command in reading order wins.
 * `known`: files anchorfs cannot read (`outside`) and the machine's path rules (`paths`).
 */
export function judgeWindowsScript(
  line: string,
  shell: WindowsShell,
  known: { outside?: ReadonlySet<string>; paths?: PathRules; startDir?: string } = {},
): Refusal | undefined {
  const list = stages(line, shell);
  if (!list) {
    return {
      rule: "parse_error",
      offending: line,
      parseError: "a quote is not closed",
    };
  }
  const ctx: LineContext = {
    paths: known.paths ?? WINDOWS_PATHS,
    ...(known.outside && { outside: known.outside }),
    ...(known.startDir !== undefined && { cwd: known.startDir }),
  };
  for (const stage of list) {
    const refusal = shell === "cmd" ? judgeCmd(stage, ctx) : judgePowerShell(stage, ctx);
    if (refusal) return refusal;
    // `cd C:\src && type a.txt`: later suggestions name paths the way the line meant them.
    const target = cdTarget(stage, shell);
    if (target !== undefined) ctx.cwd = place(ctx, target);
  }
  return undefined;
}

// --- cmd.exe ---------------------------------------------------------------------------------

function judgeCmd(stage: Stage, ctx: LineContext): Refusal | undefined {
  const name = (stage.words[0] ?? "").toLowerCase().replace(/\.(exe|com)$/, "");
  const args = stage.words.slice(1);
  const switches = args.filter((a) => a.startsWith("/")).map((a) => a.toLowerCase());
  const operands = args.filter((a) => !a.startsWith("/"));
  const refuse = (rule: Refusal["rule"], extra: Partial<Refusal> = {}): Refusal => ({
    rule,
    offending: stage.text,
    ...extra,
  });
  switch (name) {
    case "type": {
      const files = operands.filter((f) => !isDevice(f));
      if (files.length === 0 || stage.toFile) return undefined;
      return refuseReading(
        ctx,
        files,
        refuse("read_file", {
          reason: "`type` prints whole files into the tool result: view shows them with line ids.",
          calls: files.slice(0, 3).map((f) => view({ path: place(ctx, f) })),
        }),
      );
    }
    case "more": {
      const files = stage.stdinFile !== undefined ? [stage.stdinFile] : operands;
      if (stage.fed || stage.toFile || files.length === 0) return undefined;
      return refuseReading(
        ctx,
        files,
        refuse("read_file", {
          reason: NEVER_ENDS_REASONS.pager!,
          calls: files.slice(0, 3).map((f) => view({ path: place(ctx, f) })),
        }),
      );
    }
    case "findstr": {
      if (stage.fed || stage.toFile) return undefined;
      const pattern = findstrPattern(args);
      const files = pattern.files.filter((f) => !isDevice(f));
      if (files.length === 0 && stage.stdinFile === undefined) return undefined;
      const recursive = switches.includes("/s");
      const roots = files.length > 0 ? files : [stage.stdinFile!];
      const ignoreCase = switches.includes("/i");
      return refuseReading(
        ctx,
        recursive ? [] : roots,
        refuse("search_text", {
          reason: "`findstr` searches files; view with `content` does it with line ids and " +
            "honours .gitignore.",
          calls: [searchCall(ctx, roots, pattern.text, pattern.regex, ignoreCase, recursive)],
        }),
      );
    }
    case "dir":
      return judgeDir(stage, ctx, switches, operands);
    case "tree":
      if (stage.toFile) return undefined;
      return refuse("list_files", { calls: [listCall(ctx, operands[0] ?? ".", true)] });
    case "timeout": {
      // `timeout /t 30` is cmd's sleep.
      if (!switches.includes("/t") || stage.inLoop) return undefined;
      return refuse("bare_sleep");
    }
    case "ping":
      return switches.includes("-t") || args.includes("-t")
        ? refuse("never_ends", { reason: "`ping -t` pings until stopped: `ping -n 3 host`." })
        : undefined;
  }
  return undefined;
}

/** `dir` (a listing; `dir /s` a whole tree): view does it, except for files view cannot read. */
function judgeDir(
  stage: Stage,
  ctx: LineContext,
  switches: string[],
  operands: string[],
): Refusal | undefined {
  if (stage.toFile) return undefined;
  const recursive = switches.some((s) => s === "/s" || s.startsWith("/s"));
  const root = operands[0] ?? ".";
  return refuseReading(ctx, operands, {
    rule: "list_files",
    offending: stage.text,
    reason: recursive
      ? "`dir /s` lists a whole tree into the tool result: view on a directory with a " +
        "`pattern` does it with .gitignore honoured."
      : "`dir` lists a directory: view on it does the same with line counts.",
    calls: [listCall(ctx, root, recursive)],
  });
}

function findstrPattern(args: string[]): { text: string; regex: boolean; files: string[] } {
  let regex = true; // findstr defaults to regular expressions (of its own, limited kind)
  let text: string | undefined;
  const files: string[] = [];
  for (const a of args) {
    const lower = a.toLowerCase();
    if (lower === "/l") regex = false;
    else if (lower === "/r") regex = true;
    else if (lower.startsWith("/c:")) {
      text = a.slice(3);
      regex = regex && !args.some((x) => x.toLowerCase() === "/l");
    } else if (a.startsWith("/")) continue;
    else if (text === undefined) text = a;
    else files.push(a);
  }
  return { text: text ?? "", regex, files };
}

function splitRoot(path: string): { dir: string; pattern?: string } {
  if (!/[*?]/.test(path)) return { dir: path };
  const cut = Math.max(path.lastIndexOf("\\"), path.lastIndexOf("/"));
  return cut < 0
    ? { dir: ".", pattern: path }
    : { dir: path.slice(0, cut) || ".", pattern: path.slice(cut + 1) };
}

function searchCall(
  ctx: LineContext,
  roots: string[],
  text: string,
  regex: boolean,
  ignoreCase: boolean,
  recursive: boolean,
): string {
  const first = splitRoot(roots[0]!);
  const args: Record<string, unknown> = {
    path: roots.length === 1 ? place(ctx, first.dir) : roots.map((r) => place(ctx, r)).join("|"),
    content: ignoreCase && regex ? `(?i)${text}` : text,
    regex,
  };
  if (roots.length === 1 && first.pattern !== undefined) {
    args.pattern = recursive ? `**/${first.pattern}` : first.pattern;
  }
  return view(args);
}

function listCall(ctx: LineContext, root: string, recursive: boolean): string {
  const { dir: written, pattern } = splitRoot(root);
  const dir = place(ctx, written);
  if (!recursive) return view({ path: dir, max_depth: 1, ...(pattern && { pattern }) });
  return view({ path: dir, pattern: `**/${pattern ?? "*"}` });
}

// --- PowerShell --------------------------------------------------------------------------------

const PS_READERS = new Set(["get-content", "gc", "cat", "type"]);
const PS_SEARCH = new Set(["select-string", "sls"]);
const PS_LIST = new Set(["get-childitem", "gci", "ls", "dir"]);
const PS_SLEEP = new Set(["start-sleep", "sleep"]);

/** `-Name value` pairs and positionals; a switch is `-Name` followed by another `-` word. */
function psParams(args: string[], switches: readonly string[]) {
  const named = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^-([A-Za-z]+)(?::(.*))?$/.exec(a);
    if (!m) {
      positional.push(a);
      continue;
    }
    const key = m[1]!.toLowerCase();
    if (m[2] !== undefined) named.set(key, m[2]);
    else if (switches.some((s) => s.startsWith(key)) && key.length >= 1) flags.add(key);
    else if (i + 1 < args.length) named.set(key, args[++i]!);
    else flags.add(key);
  }
  const has = (...names: string[]) =>
    [...flags].some((f) => names.some((n) => n.startsWith(f) && f.length >= 1));
  const get = (...names: string[]) => {
    for (const [k, v] of named) if (names.some((n) => n.startsWith(k))) return v;
    return undefined;
  };
  return { positional, has, get };
}

function judgePowerShell(stage: Stage, ctx: LineContext): Refusal | undefined {
  const name = (stage.words[0] ?? "").toLowerCase().replace(/\.exe$/, "");
  const args = stage.words.slice(1);
  const refuse = (rule: Refusal["rule"], extra: Partial<Refusal> = {}): Refusal => ({
    rule,
    offending: stage.text,
    ...extra,
  });
  if (PS_READERS.has(name)) return judgePsRead(stage, ctx, args, refuse);
  if (PS_SEARCH.has(name)) return judgePsSearch(stage, ctx, args, refuse);
  if (PS_LIST.has(name)) return judgePsList(stage, ctx, args, refuse);
  if (PS_SLEEP.has(name) && !stage.inLoop) return refuse("bare_sleep");
  if (name === "more" && !stage.fed && args.length > 0 && !stage.toFile) {
    return refuseReading(
      ctx,
      args,
      refuse("read_file", {
        reason: NEVER_ENDS_REASONS.pager!,
        calls: args.slice(0, 3).map((f) => view({ path: place(ctx, f) })),
      }),
    );
  }
  return undefined;
}

type Refuse = (rule: Refusal["rule"], extra?: Partial<Refusal>) => Refusal;

/** Get-Content / gc / cat / type: view reads the file (or its end, or its head). */
function judgePsRead(
  stage: Stage,
  ctx: LineContext,
  args: string[],
  refuse: Refuse,
): Refusal | undefined {
  const p = psParams(args, ["wait", "raw", "force"]);
  const path = p.get("path", "literalpath") ?? p.positional[0];
  if (p.has("wait")) {
    return refuse("never_ends", { reason: NEVER_ENDS_REASONS.follow! });
  }
  if (path === undefined || stage.toFile || isDevice(path)) return undefined;
  const tail = p.get("tail", "last");
  const head = p.get("totalcount", "head", "first");
  const extra = tail !== undefined && /^\d+$/.test(tail)
    ? { start: -Number(tail) }
    : head !== undefined && /^\d+$/.test(head)
    ? { start: 1, end: Number(head) }
    : {};
  return refuseReading(
    ctx,
    [path],
    refuse("read_file", {
      reason: "`Get-Content` prints the file into the tool result: view shows it with line ids.",
      calls: [view({ path: place(ctx, path), ...extra })],
    }),
  );
}

/** Select-String / sls on files: view with content searches them. */
function judgePsSearch(
  stage: Stage,
  ctx: LineContext,
  args: string[],
  refuse: Refuse,
): Refusal | undefined {
  const p = psParams(args, ["simplematch", "casesensitive", "allmatches", "notmatch", "recurse"]);
  const pattern = p.get("pattern") ?? p.positional[0];
  const path = p.get("path", "literalpath") ??
    (p.get("pattern") !== undefined ? p.positional[0] : p.positional[1]);
  if (stage.fed || stage.toFile || path === undefined || pattern === undefined) return undefined;
  const regex = !p.has("simplematch");
  // Select-String ignores case unless -CaseSensitive.
  const content = regex && !p.has("casesensitive") ? `(?i)${pattern}` : pattern;
  const { dir, pattern: glob } = splitRoot(path);
  return refuseReading(
    ctx,
    [path],
    refuse("search_text", {
      reason: "`Select-String` searches files; view with `content` does it with line ids and " +
        "honours .gitignore.",
      calls: [view({ path: place(ctx, dir), content, regex, ...(glob && { pattern: glob }) })],
    }),
  );
}

/** Get-ChildItem / gci / ls / dir: view lists the directory (with -Recurse, the tree). */
function judgePsList(
  stage: Stage,
  ctx: LineContext,
  args: string[],
  refuse: Refuse,
): Refusal | undefined {
  const p = psParams(args, ["recurse", "force", "name", "file", "directory", "hidden"]);
  if (stage.toFile) return undefined;
  const recursive = p.has("recurse");
  const given = p.get("path", "literalpath") ?? p.positional[0];
  const filter = p.get("filter", "include");
  const { dir: written, pattern } = splitRoot(given ?? ".");
  const dir = place(ctx, written);
  const glob = filter ?? pattern;
  return refuseReading(
    ctx,
    given === undefined ? [] : [given],
    refuse("list_files", {
      reason: recursive
        ? "`Get-ChildItem -Recurse` lists a whole tree into the tool result: view on a " +
          "directory with a `pattern` does it with .gitignore honoured."
        : "`Get-ChildItem` lists a directory: view on it does the same with line counts.",
      calls: [
        recursive
          ? view({ path: dir, pattern: `**/${glob ?? "*"}` })
          : view({ path: dir, max_depth: 1, ...(glob && { pattern: glob }) }),
      ],
    }),
  );
}
