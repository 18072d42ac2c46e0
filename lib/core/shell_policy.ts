// Shell policy: judges a command line before anything runs and refuses shell misuse (cat,
// grep, find, sed, bare sleep, never-ending commands) with the exact replacement call.
// Pure: parses the text (lib/core/shell_parse.ts), spawns nothing. Messages: policy_messages.ts.

import {
  EDITOR_REASON,
  formatCall,
  formatRefusal,
  NEVER_ENDS_REASONS,
  NOTHING_TO_READ_REASON,
  type PolicyRule,
} from "./policy_messages.ts";
import { parseCommandLine, type SimpleCommand, splitWords, type Word } from "./shell_parse.ts";

export type { PolicyRule } from "./policy_messages.ts";

export type PolicyVerdict =
  | { allowed: true }
  | {
    allowed: false;
    /** Stable rule id, e.g. "read_file", "search_text", "parse_error". */
    rule: string;
    /** The whole message for the model: rule + replacement tool, worked examples, what is allowed. */
    message: string;
    /** The simple command that triggered the rule, as written. */
    offending: string;
  };

/** Judges a whole command line; refuses with the first offending simple command in it. */
export function judgeCommand(command: string): PolicyVerdict {
  let refusal: Refusal | undefined;
  try {
    refusal = judgeScript(command, { depth: 0 });
  } catch (e) {
    // Only a pathological line (thousands of nested find -exec) gets here: refuse, never crash.
    if (!(e instanceof RangeError)) throw e;
    refusal = {
      rule: "parse_error",
      offending: command,
      parseError: "the command line nests too deeply to be judged",
    };
  }
  if (!refusal) return { allowed: true };
  return {
    allowed: false,
    rule: refusal.rule,
    message: formatRefusal(refusal),
    offending: refusal.offending,
  };
}

interface Refusal {
  rule: PolicyRule;
  offending: string;
  host?: string;
  reason?: string;
  calls?: string[];
  parseError?: string;
}

/** Where a script runs: locally, or on an ssh host (paths in suggestions become ssh:// URLs). */
interface Scope {
  host?: string;
  depth: number;
}

// bash -c inside ssh inside eval…: deeper than this is not something an agent writes by hand.
const MAX_NESTING = 8;

function judgeScript(script: string, scope: Scope): Refusal | undefined {
  if (scope.depth > MAX_NESTING) {
    return withHost({
      rule: "parse_error",
      offending: script,
      parseError: `commands nested more than ${MAX_NESTING} levels deep (ssh, bash -c, eval) ` +
        `are not judged`,
    }, scope);
  }
  const parsed = parseCommandLine(script);
  if (!parsed.ok) {
    return withHost({
      rule: "parse_error",
      offending: script,
      parseError: `${parsed.error} (at offset ${parsed.offset})`,
    }, scope);
  }
  let cwd: string | undefined;
  for (const cmd of parsed.commands) {
    const refusal = judgeSimple(cmd, scope, cwd);
    if (refusal) return refusal;
    // `cd /x && grep …`: later suggestions name paths the way the command meant them.
    const [first, target] = cmd.words;
    if (first?.value === "cd" && target && !target.expands && cmd.words.length === 2) {
      cwd = joinPath(cwd, target.value);
    }
  }
  return undefined;
}

function withHost(r: Refusal, scope: Scope): Refusal {
  if (scope.host) r.host = scope.host;
  return r;
}

// ---- unwrapping: assignments, wrappers, shells, ssh ------------------------------------------

/** What a simple command runs once wrappers are peeled off. */
interface Invocation {
  name: string;
  args: Word[];
  cmd: SimpleCommand;
  scope: Scope;
  cwd: string | undefined;
  /** Run by `timeout`: a follower (tail -f) ends when the timeout fires. */
  bounded: boolean;
  /** Run by xargs or find -exec: its file operands arrive from outside the words we see. */
  implicitFiles: boolean;
}

function judgeSimple(
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
): Refusal | undefined {
  // `$(< file)` is bash's built-in `cat file`: the same read, judged the same way.
  const input = stdinFile(cmd);
  if (cmd.words.length === 0 && cmd.inSubstitution && input !== undefined) {
    const inv = invocation("cat", [], cmd, scope, cwd, false, { implicitFiles: false });
    if (isPseudoFile(input)) return undefined;
    return refuse(inv, "read_file", { calls: viewCalls(inv, [input]) });
  }
  return judgeWords(cmd.words, cmd, scope, cwd, { bounded: false, implicitFiles: false });
}

function judgeWords(
  words: Word[],
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
  flags: { bounded: boolean; implicitFiles: boolean },
): Refusal | undefined {
  let i = 0;
  let bounded = flags.bounded;
  for (;;) {
    while (i < words.length && isAssignment(words[i]!)) i++;
    const word = words[i];
    // Nothing runs (an assignment or redirection alone), or the program is only known at run
    // time (`$CMD file`): nothing to judge.
    if (!word || word.expands || word.value === "") return undefined;
    const name = baseName(word.value);
    const rest = words.slice(i + 1);
    const nestedScope = { ...scope, depth: scope.depth + 1 };
    switch (name) {
      case "env": {
        const { opts, operands } = scanArgs(rest, {
          short: "uCS",
          long: ["unset", "chdir", "split-string"],
          stopAtOperand: true,
        });
        const split = opts.find((o) => o.name === "-S" || o.name === "--split-string");
        if (split?.value !== undefined) {
          const script = [split.value, ...operands.map((w) => shellQuote(w.value))].join(" ");
          return judgeScript(script, nestedScope);
        }
        words = operands;
        i = 0;
        continue;
      }
      case "command": {
        const { opts, operands } = scanArgs(rest, { stopAtOperand: true });
        if (opts.some((o) => o.name === "-v" || o.name === "-V")) return undefined;
        words = operands;
        i = 0;
        continue;
      }
      case "exec":
      case "time":
      case "nice":
      case "nohup":
      case "sudo":
      case "doas":
      case "stdbuf":
      case "ionice":
      case "setsid":
      case "builtin": {
        const spec = WRAPPER_OPTIONS[name]!;
        const { opts, operands } = scanArgs(rest, { ...spec, stopAtOperand: true });
        if (name === "sudo" && opts.some((o) => ["-e", "--edit"].includes(o.name))) {
          return refuse(
            invocation("sudoedit", operands, cmd, scope, cwd, bounded, flags),
            "edit_in_place",
            { reason: EDITOR_REASON },
          );
        }
        words = operands;
        i = 0;
        continue;
      }
      case "timeout": {
        const { operands } = scanArgs(rest, {
          short: "sk",
          long: ["signal", "kill-after"],
          stopAtOperand: true,
        });
        bounded = true;
        words = operands.slice(1); // the duration
        i = 0;
        continue;
      }
      case "busybox":
        words = rest;
        i = 0;
        continue;
      case "sudoedit":
        return refuse(
          invocation(name, rest, cmd, scope, cwd, bounded, flags),
          "edit_in_place",
          { reason: EDITOR_REASON },
        );
      case "bash":
      case "sh":
      case "zsh":
      case "dash":
      case "ksh":
      case "ash":
      case "mksh": {
        const script = shellScript(rest, cmd);
        return script === undefined ? undefined : judgeScript(script, nestedScope);
      }
      case "su": {
        const { opts } = scanArgs(rest, { short: "cgGs", long: ["command", "group", "shell"] });
        const c = opts.find((o) => o.name === "-c" || o.name === "--command");
        return c?.value === undefined ? undefined : judgeScript(c.value, nestedScope);
      }
      case "eval":
        return judgeScript(rest.map((w) => w.value).join(" "), nestedScope);
      case "ssh":
        return judgeSsh(rest, cmd, scope);
      case "xargs":
        return judgeXargs(rest, cmd, scope, cwd);
      default:
        return judgeProgram(invocation(name, rest, cmd, scope, cwd, bounded, flags));
    }
  }
}

function invocation(
  name: string,
  args: Word[],
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
  bounded: boolean,
  flags: { implicitFiles: boolean },
): Invocation {
  return { name, args, cmd, scope, cwd, bounded, implicitFiles: flags.implicitFiles };
}

const WRAPPER_OPTIONS: Record<string, ScanSpec> = {
  exec: { short: "a" },
  time: { short: "fo", long: ["format", "output"] },
  nice: { short: "n", long: ["adjustment"], numeric: true },
  nohup: {},
  sudo: {
    short: "ugpChDrtUTR",
    long: [
      "user",
      "group",
      "prompt",
      "close-from",
      "host",
      "chdir",
      "role",
      "type",
      "other-user",
      "command-timeout",
      "chroot",
    ],
  },
  doas: { short: "uC" },
  stdbuf: { short: "ioe", long: ["input", "output", "error"] },
  ionice: { short: "cnpPu", long: ["class", "classdata", "pid", "pgid", "uid"] },
  setsid: {},
  builtin: {},
};

/** The script a shell would run: `-c script`, or its stdin when that is a heredoc. */
function shellScript(args: Word[], cmd: SimpleCommand): string | undefined {
  const { opts, operands } = scanArgs(args, {
    short: "oO",
    long: ["rcfile", "init-file"],
    stopAtOperand: true,
  });
  if (opts.some((o) => o.name === "-c")) return operands[0]?.value;
  if (operands.length === 0) return heredocBody(cmd);
  return undefined; // a script file: its contents are not ours to see
}

function heredocBody(cmd: SimpleCommand): string | undefined {
  for (const r of cmd.redirects) {
    if ((r.op === "<<" || r.op === "<<-") && (r.fd === undefined || r.fd === 0)) return r.body;
    if (r.op === "<<<" && (r.fd === undefined || r.fd === 0)) return r.target.value;
  }
  return undefined;
}

// ssh's options that take a value (ssh(1) synopsis); all others are flags.
const SSH_VALUE_OPTIONS = "BbcDEeFIiJLlmOopQRSWw";

function judgeSsh(args: Word[], cmd: SimpleCommand, scope: Scope): Refusal | undefined {
  let user: string | undefined;
  let port: string | undefined;
  let host: string | undefined;
  let subsystem = false;
  let rest = args;
  // OpenSSH accepts options before and after the destination, up to the remote command.
  for (let round = 0; round < 2; round++) {
    const { opts, operands, terminated } = scanArgs(rest, {
      short: SSH_VALUE_OPTIONS,
      stopAtOperand: true,
    });
    for (const o of opts) {
      if (o.name === "-l") user = o.value;
      if (o.name === "-p") port = o.value;
      if (o.name === "-s") subsystem = true;
    }
    if (round === 0) {
      if (operands.length === 0) return undefined; // `ssh -V`, `ssh -G`: nothing runs remotely
      host = operands[0]!.value;
      rest = operands.slice(1);
      if (terminated) break;
    } else {
      rest = operands;
    }
  }
  if (subsystem || host === undefined) return undefined;
  const target = formatSshTarget(host, user, port);
  const remoteScope: Scope = { host: target, depth: scope.depth + 1 };
  if (rest.length === 0) {
    // Interactive `ssh host`: allowed; but a heredoc on its stdin is a script the remote
    // shell runs, so that script is judged.
    const body = heredocBody(cmd);
    return body === undefined ? undefined : judgeScript(body, remoteScope);
  }
  // ssh joins its remaining arguments with spaces and hands them to the remote shell.
  const remote = rest.map((w) => w.value).join(" ");
  const refusal = judgeScript(remote, remoteScope);
  if (refusal) return refusal;
  // `ssh host 'bash -s' <<'EOF' … EOF`: the heredoc is the remote script.
  const remoteWords = splitWords(remote);
  const first = remoteWords?.[0] ? baseName(remoteWords[0].value) : undefined;
  if (first && ["bash", "sh", "zsh", "dash", "ksh"].includes(first)) {
    const body = heredocBody(cmd);
    if (body !== undefined) return judgeScript(body, remoteScope);
  }
  return undefined;
}

function formatSshTarget(host: string, user?: string, port?: string): string {
  let target = host;
  if (user && !host.includes("@")) target = `${user}@${target}`;
  if (port && /^\d+$/.test(port) && port !== "22") target = `${target}:${port}`;
  return target;
}

/** `… | xargs grep foo`: xargs runs its command on file names from stdin. */
function judgeXargs(args: Word[], cmd: SimpleCommand, scope: Scope, cwd: string | undefined) {
  const { operands } = scanArgs(args, {
    short: "aEeIiLlnPsd",
    long: [
      "arg-file",
      "delimiter",
      "eof",
      "replace",
      "max-lines",
      "max-args",
      "max-procs",
      "max-chars",
      "process-slot-var",
    ],
    stopAtOperand: true,
    optionalValue: ["-i", "-e", "-l", "--replace", "--eof", "--max-lines"],
  });
  if (operands.length === 0) return undefined; // plain `xargs` runs echo
  return judgeWords(operands, cmd, scope, cwd, { bounded: false, implicitFiles: true });
}

// ---- the rules --------------------------------------------------------------------------------

const READERS = new Set(["cat", "tac", "nl", "bat", "batcat"]);
const PAGERS = new Set(["less", "more", "most"]);
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep", "ugrep", "ug"]);
const LISTERS = new Set(["ls", "dir", "vdir", "exa", "eza", "lsd", "tree"]);
const FINDERS = new Set(["find", "fd", "fdfind"]);
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
const EDITORS = new Set([
  "vi",
  "vim",
  "nvim",
  "view",
  "nano",
  "pico",
  "emacs",
  "micro",
  "joe",
  "ed",
  "ex",
]);
const MONITORS = new Set(["htop", "btop", "atop", "iotop", "nmon", "glances", "iftop", "nload"]);

function judgeProgram(inv: Invocation): Refusal | undefined {
  const name = inv.name;
  if (READERS.has(name)) return judgeReader(inv);
  if (name === "head" || name === "tail") return judgeHeadTail(inv);
  if (PAGERS.has(name)) return judgePager(inv);
  if (SEARCHERS.has(name)) return judgeSearch(inv);
  if (LISTERS.has(name)) return judgeList(inv);
  if (FINDERS.has(name)) return judgeFind(inv);
  if (name === "sed") return judgeSed(inv);
  if (AWKS.has(name)) return judgeAwk(inv);
  if (name === "perl") return judgePerl(inv);
  if (EDITORS.has(name)) return refuse(inv, "edit_in_place", { reason: EDITOR_REASON });
  if (name === "sleep") return judgeSleep(inv);
  if (name === "watch") return neverEnds(inv, "watch");
  if (MONITORS.has(name)) return neverEnds(inv, "monitor");
  if (name === "top") return judgeTop(inv);
  if (name === "journalctl") return judgeFollower(inv, "uptSUoDMIgFn", ["follow"], "f");
  if (name === "dmesg") return judgeFollower(inv, "FfnlsC", ["follow", "follow-new"], "wW");
  if (name === "ping" || name === "ping6") return judgePing(inv);
  if (name === "yes" && inv.cmd.pipelineLength === 1 && !stdoutToFile(inv.cmd)) {
    return neverEnds(inv, "yes");
  }
  return undefined;
}

function refuse(
  inv: Invocation,
  rule: PolicyRule,
  extra: { reason?: string; calls?: string[] } = {},
): Refusal {
  const r: Refusal = { rule, offending: inv.cmd.text };
  if (inv.scope.host) r.host = inv.scope.host;
  if (extra.reason) r.reason = extra.reason;
  if (extra.calls && extra.calls.length > 0) r.calls = extra.calls;
  return r;
}

function neverEnds(inv: Invocation, why: keyof typeof NEVER_ENDS_REASONS): Refusal {
  return refuse(inv, "never_ends", { reason: NEVER_ENDS_REASONS[why] });
}

/**
 * The common shape of read/search/edit rules: a program that reads `files` (or its stdin when
 * there are none). Returns undefined when the reading is allowed:
 * - a later pipeline stage, or stdin from a heredoc/here-string: a stream filter;
 * - every file under /proc, /sys or /dev: kernel pseudo-files, not project text;
 * - (read/search/list only) stdout redirected into a file: nothing reaches the model.
 */
function readsProjectFiles(
  inv: Invocation,
  files: Word[],
  rule: PolicyRule,
  options: { readsStdin?: boolean } = {},
): { files: string[]; nothingToRead: boolean } | undefined {
  const cmd = inv.cmd;
  let paths = files.map((w) => w.value).filter((p) => p !== "-");
  let nothingToRead = false;
  if (paths.length === 0 && !inv.implicitFiles) {
    if (options.readsStdin === false) paths = ["."];
    else {
      if (cmd.fed || stdinIsData(cmd)) return undefined;
      const input = stdinFile(cmd);
      if (input !== undefined) paths = [input];
      else nothingToRead = true;
    }
  }
  if (paths.length > 0 && paths.every(isPseudoFile)) return undefined;
  if (rule !== "edit_in_place" && stdoutToFile(cmd)) return undefined;
  return { files: paths, nothingToRead };
}

function judgeReader(inv: Invocation): Refusal | undefined {
  const { operands } = scanArgs(inv.args, READER_OPTIONS[inv.name] ?? {});
  const reading = readsProjectFiles(inv, operands, "read_file");
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, "read_file", { reason: NOTHING_TO_READ_REASON });
  return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files) });
}

const READER_OPTIONS: Record<string, ScanSpec> = {
  nl: { short: "bdfhilnsvw" },
  bat: {
    short: "lHrmpd",
    long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging"],
  },
  batcat: {
    short: "lHrmpd",
    long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging"],
  },
};

function judgeHeadTail(inv: Invocation): Refusal | undefined {
  const isTail = inv.name === "tail";
  const { opts, operands } = scanArgs(inv.args, {
    short: isTail ? "ncs" : "nc",
    long: ["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"],
    numeric: true,
    optionalValue: ["--follow"],
  });
  if (isTail) {
    const follows = opts.some((o) =>
      o.name === "-f" || o.name === "-F" || o.name === "--follow" || o.name === "--retry"
    );
    if (follows) {
      if (inv.bounded) return undefined;
      // The one-off read of what is there now is the nearest finite call.
      const count = headTailRange(true, opts).start ?? -10;
      return refuse(inv, "never_ends", {
        reason: NEVER_ENDS_REASONS.follow,
        calls: viewCalls(inv, operands.map((w) => w.value), { start: count }),
      });
    }
  }
  const reading = readsProjectFiles(inv, operands, "read_file");
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, "read_file", { reason: NOTHING_TO_READ_REASON });
  const range = headTailRange(isTail, opts);
  return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files, range) });
}

function headTailRange(isTail: boolean, opts: Opt[]): Record<string, number> {
  if (opts.some((o) => o.name === "-c" || o.name === "--bytes")) return {};
  let count = "10";
  for (const o of opts) {
    if ((o.name === "-n" || o.name === "--lines") && o.value !== undefined) count = o.value;
    else if (/^-\d+$/.test(o.name)) count = o.name.slice(1);
  }
  if (isTail && count.startsWith("+") && /^\+\d+$/.test(count)) return { start: Number(count) };
  if (!/^\d+$/.test(count)) return {};
  const n = Number(count);
  if (n === 0) return {};
  return isTail ? { start: -n } : { start: 1, end: n };
}

function judgePager(inv: Invocation): Refusal | undefined {
  // less's options are many; operands are the words that are not options.
  const files = inv.args.filter((w) => !w.value.startsWith("-") && !w.value.startsWith("+"));
  if (inv.cmd.fed || files.length === 0 && !inv.implicitFiles) {
    return stdinIsData(inv.cmd) && !inv.cmd.fed ? undefined : neverEnds(inv, "pager");
  }
  const reading = readsProjectFiles(inv, files, "read_file");
  if (!reading) return undefined;
  return refuse(inv, "read_file", {
    reason: NEVER_ENDS_REASONS.pager,
    calls: viewCalls(inv, reading.files),
  });
}

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

function judgeSearch(inv: Invocation): Refusal | undefined {
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

function judgeList(inv: Invocation): Refusal | undefined {
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
    const { dir, pattern } = splitGlob(f);
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

function judgeFind(inv: Invocation): Refusal | undefined {
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
  for (let j = 0; j < expr.length; j++) {
    const v = expr[j]!.value;
    if (v === "-delete") acts = true;
    if (v === "-exec" || v === "-execdir" || v === "-ok" || v === "-okdir") {
      let end = j + 1;
      while (end < expr.length && expr[end]!.value !== ";" && expr[end]!.value !== "+") end++;
      const inner = expr.slice(j + 1, end);
      // `find … -exec grep -l x {} +`: the inner command is judged like any other, with the
      // found files as its operands.
      const refusal = judgeWords(inner, inv.cmd, inv.scope, inv.cwd, {
        bounded: inv.bounded,
        implicitFiles: true,
      });
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
    if (v === "-maxdepth" && expr[j + 1] && /^\d+$/.test(expr[j + 1]!.value)) {
      maxDepth = Number(expr[j + 1]!.value);
    }
  }
  if (acts) return undefined; // an action over files (delete, chmod, rm), not a listing
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
    const refusal = judgeWords(inner, inv.cmd, inv.scope, inv.cwd, {
      bounded: inv.bounded,
      implicitFiles: true,
    });
    return refusal;
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

function judgeSed(inv: Invocation): Refusal | undefined {
  const { opts, operands } = scanArgs(inv.args, {
    short: "efl",
    long: ["expression", "file", "line-length"],
    optionalValue: ["-i", "--in-place"],
  });
  const inPlace = opts.some((o) => o.name === "-i" || o.name === "--in-place");
  const scripts = opts.filter((o) => o.name === "-e" || o.name === "--expression").map((o) =>
    o.value ?? ""
  );
  const hasScriptOption = scripts.length > 0 ||
    opts.some((o) => o.name === "-f" || o.name === "--file");
  if (!hasScriptOption && operands[0]) scripts.push(operands[0].value);
  const files = hasScriptOption ? operands : operands.slice(1);
  const quiet = opts.some((o) => ["-n", "--quiet", "--silent"].includes(o.name));
  if (inPlace) {
    if (files.length > 0 && files.every((w) => isPseudoFile(w.value))) return undefined;
    return refuse(inv, "edit_in_place", {
      calls: substitutionCalls(inv, scripts, files.map((w) => w.value)),
    });
  }
  const rule: PolicyRule = quiet ? "read_file" : "edit_in_place";
  const reading = readsProjectFiles(inv, files, rule);
  if (!reading) return undefined;
  if (quiet) {
    const range = sedPrintRange(scripts);
    return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files, range) });
  }
  return refuse(inv, "edit_in_place", { calls: substitutionCalls(inv, scripts, reading.files) });
}

/** `sed -n '10,20p'` → start/end. */
function sedPrintRange(scripts: string[]): Record<string, number> {
  if (scripts.length !== 1) return {};
  const m = /^\s*(\d+)\s*(?:,\s*(\d+|\$)\s*)?p\s*$/.exec(scripts[0]!);
  if (!m) return /^\s*\$\s*p\s*$/.test(scripts[0]!) ? { start: -1 } : {};
  const start = Number(m[1]);
  if (m[2] === undefined) return { start, end: start };
  if (m[2] === "$") return { start };
  return { start, end: Number(m[2]) };
}

/** `s/old/new/` with literal text on both sides → text_editor str_replace on each file. */
function substitutionCalls(inv: Invocation, scripts: string[], files: string[]): string[] {
  if (scripts.length !== 1 || files.length === 0) return [];
  const m = /^s(.)(.*)$/s.exec(scripts[0]!.trim());
  if (!m) return [];
  const delim = m[1]!;
  const parts = splitSedParts(m[2]!, delim);
  // Only s/literal/literal/ with no flag or `g` maps exactly (I, N-th match, regexes do not).
  if (!parts || parts.length !== 3 || !/^g?$/.test(parts[2]!)) return [];
  const [oldText, newText, flags] = parts as [string, string, string];
  if (/[\\^$.*[\]+?(){}|]/.test(oldText) || /[\\&$]/.test(newText) || oldText === "") return [];
  return files.filter(isLiteralPath).slice(0, 3).map((f) =>
    formatCall("text_editor", {
      command: "str_replace",
      path: toolPath(inv, f),
      old_text: oldText,
      new_text: newText,
      ...(flags === "g" ? { replace_all: true } : {}),
    })
  );
}

function splitSedParts(body: string, delim: string): string[] | undefined {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && body[i + 1] === delim) {
      current += delim;
      i++;
    } else if (c === "\\" && i + 1 < body.length) {
      current += c + body[i + 1];
      i++;
    } else if (c === delim) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.length === 3 ? parts : undefined;
}

function judgeAwk(inv: Invocation): Refusal | undefined {
  const { opts, operands } = scanArgs(inv.args, {
    short: "fvFiEl",
    long: ["file", "assign", "field-separator", "include", "exec", "load"],
  });
  const inPlace = opts.some((o) =>
    (o.name === "-i" || o.name === "--include") && /^inplace$/.test(o.value ?? "")
  );
  const hasProgramFile = opts.some((o) => ["-f", "--file", "-E", "--exec"].includes(o.name));
  const program = hasProgramFile ? undefined : operands[0]?.value;
  // Operands like `var=value` are assignments, not files.
  const files = (hasProgramFile ? operands : operands.slice(1)).filter((w) =>
    !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)
  );
  if (!inPlace && files.length === 0 && program !== undefined && /^\s*BEGIN\s*\{/.test(program)) {
    // `awk 'BEGIN { print 6*7 }'`: computes, reads nothing (unless a main rule follows).
    if (!/\}\s*[^\s}]/.test(program.replace(/^\s*BEGIN\s*\{[^]*?\}\s*$/, ""))) return undefined;
  }
  if (inPlace && files.length > 0 && files.every((w) => isPseudoFile(w.value))) return undefined;
  // gawk -i inplace, or output written to a file (`awk … f > f.tmp && mv f.tmp f`): an edit.
  // Otherwise awk on files extracts and prints: a read, and view is the tool for it.
  const rule: PolicyRule = inPlace || stdoutToFile(inv.cmd) ? "edit_in_place" : "read_file";
  const reading = inPlace
    ? { files: files.map((w) => w.value), nothingToRead: false }
    : readsProjectFiles(inv, files, rule);
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, rule, { reason: NOTHING_TO_READ_REASON });
  return refuse(inv, rule, { calls: rule === "read_file" ? viewCalls(inv, reading.files) : [] });
}

function judgePerl(inv: Invocation): Refusal | undefined {
  let inPlace = false;
  const scripts: string[] = [];
  let i = 0;
  for (; i < inv.args.length; i++) {
    const v = inv.args[i]!.value;
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    // Perl switch clusters: -i takes the rest as a backup suffix (`-pi.bak`), -e/-E the next
    // word as code, and -I/-M/-m/-F/-0/-l/-C/-d/-D/-x the rest of the cluster.
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      if (c === "i") {
        inPlace = true;
        break;
      }
      if (c === "e" || c === "E") {
        const code = v.slice(j + 1) || inv.args[++i]?.value;
        if (code !== undefined) scripts.push(code);
        break;
      }
      if ("IMmF0lCdDx".includes(c)) break;
    }
  }
  if (!inPlace) return undefined;
  const files = inv.args.slice(scripts.length > 0 ? i : i + 1).map((w) => w.value);
  if (files.length > 0 && files.every(isPseudoFile)) return undefined;
  return refuse(inv, "edit_in_place", { calls: substitutionCalls(inv, scripts, files) });
}

function judgeSleep(inv: Invocation): Refusal | undefined {
  const cmd = inv.cmd;
  // Inside a loop it paces a poll; in the background it is a timer: neither burns the call.
  if (cmd.inLoop || cmd.background) return undefined;
  return refuse(inv, "bare_sleep");
}

function judgeTop(inv: Invocation): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: "dnpuUoOsw", long: [] });
  const batch = opts.some((o) => o.name === "-b");
  const iterations = opts.some((o) => o.name === "-n");
  return batch && iterations ? undefined : neverEnds(inv, "top");
}

function judgeFollower(
  inv: Invocation,
  valueShort: string,
  followLong: string[],
  followShort: string,
): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: valueShort });
  const follows = opts.some((o) =>
    followShort.includes(o.name.slice(1)) && o.name.length === 2 ||
    followLong.includes(o.name.replace(/^--/, ""))
  );
  if (!follows || inv.bounded) return undefined;
  return neverEnds(inv, "follow");
}

function judgePing(inv: Invocation): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: "cwWisItlpQSMFTmIB" });
  const bounded = opts.some((o) => o.name === "-c" || o.name === "-w");
  return bounded || inv.bounded ? undefined : neverEnds(inv, "ping");
}

// ---- redirections and paths ---------------------------------------------------------------

function stdinIsData(cmd: SimpleCommand): boolean {
  return cmd.redirects.some((r) =>
    (r.op === "<<" || r.op === "<<-" || r.op === "<<<") && (r.fd === undefined || r.fd === 0)
  );
}

function stdinFile(cmd: SimpleCommand): string | undefined {
  const r = cmd.redirects.find((r) => r.op === "<" && (r.fd === undefined || r.fd === 0));
  return r?.target.value;
}

// Redirect targets that still put the output in front of the model (or throw it away while the
// exit status answers the question, like grep -q).
const VISIBLE_SINKS = /^\/dev\/(stdout|stderr|tty|null|fd\/[12])$|^\/proc\/self\/fd\/[12]$/;

function stdoutToFile(cmd: SimpleCommand): boolean {
  return cmd.redirects.some((r) => {
    const toStdout = ((r.op === ">" || r.op === ">>" || r.op === ">|") &&
      (r.fd === undefined || r.fd === 1)) || r.op === "&>" || r.op === "&>>";
    return toStdout && !VISIBLE_SINKS.test(r.target.value);
  });
}

/** Kernel pseudo-files: not project text, contents change between reads, view adds nothing. */
function isPseudoFile(path: string): boolean {
  return /^\/(proc|sys|dev)(\/|$)/.test(path);
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || path;
}

function isAssignment(word: Word): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.raw);
}

function literalWord(value: string): Word {
  return { raw: value, value, quoted: false, expands: false, glob: false };
}

function joinPath(base: string | undefined, path: string): string {
  if (base === undefined || path.startsWith("/") || path.startsWith("~")) return path;
  if (path === ".") return base;
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\.\//, "")}`;
}

/** A path as the replacement tool should get it: relative to a `cd`, remote as ssh://. */
function toolPath(inv: Invocation, path: string): string {
  const joined = joinPath(inv.cwd, path);
  const host = inv.scope.host;
  if (!host) return joined;
  if (joined.startsWith("/")) return `ssh://${host}${joined}`;
  if (joined === "~" || joined === ".") return `ssh://${host}/~`;
  if (joined.startsWith("~/")) return `ssh://${host}/${joined}`;
  return `ssh://${host}/~/${joined.replace(/^\.\//, "")}`;
}

/** Paths only known at run time (`$f`, `$(…)`) cannot be handed over as a literal call. */
function isLiteralPath(path: string): boolean {
  return !/[$`]/.test(path);
}

/** One view call per file read (up to 3); a glob becomes its directory plus a pattern. */
function viewCalls(inv: Invocation, files: string[], extra: Record<string, unknown> = {}) {
  return files.filter(isLiteralPath).slice(0, 3).map((f) => {
    const { dir, pattern } = splitGlob(f);
    if (pattern === undefined) return formatCall("view", { path: toolPath(inv, f), ...extra });
    // `cat src/*.ts`: list them first; each file is then one view call.
    return formatCall("view", { path: toolPath(inv, dir), pattern, max_depth: 1 });
  });
}

/** Roots for a search or listing; undefined when one of them is only known at run time. */
function searchRoots(
  inv: Invocation,
  paths: string[],
): { path: string; pattern?: string } | undefined {
  if (!paths.every(isLiteralPath)) return undefined;
  const globbed = paths.filter((p) => splitGlob(p).pattern !== undefined);
  if (globbed.length === 0) return { path: joinRoots(inv, paths) };
  if (paths.length !== 1) return undefined;
  const { dir, pattern } = splitGlob(paths[0]!);
  return pattern !== undefined && !pattern.includes("/")
    ? { path: toolPath(inv, dir), pattern }
    : undefined;
}

function joinRoots(inv: Invocation, paths: string[]): string {
  return paths.map((p) => toolPath(inv, p)).join("|");
}

/** `src/*.ts` → directory "src" and pattern "*.ts" for view. */
function splitGlob(path: string): { dir: string; pattern?: string } {
  if (!/[*?[{]/.test(path)) return { dir: path };
  const parts = path.split("/");
  const firstGlob = parts.findIndex((p) => /[*?[{]/.test(p));
  const dir = parts.slice(0, firstGlob).join("/") || (path.startsWith("/") ? "/" : ".");
  return { dir, pattern: parts.slice(firstGlob).join("/") };
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
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

// ---- option scanning ----------------------------------------------------------------------

interface Opt {
  /** `-x` or `--long`; numeric options keep their digits (`-20`). */
  name: string;
  value?: string;
}

interface ScanSpec {
  /** Short options that take a value, attached (`-n5`) or as the next word (`-n 5`). */
  short?: string;
  /** Long options (without `--`) that take a value as the next word when not given with `=`. */
  long?: string[];
  /** Options whose value is optional and only ever attached (`-i.bak`, `--in-place=.bak`). */
  optionalValue?: string[];
  /** Stop at the first operand (wrappers, ssh): the rest belongs to the wrapped command. */
  stopAtOperand?: boolean;
  /** `-20` is an option (head, tail, nice). */
  numeric?: boolean;
}

function scanArgs(
  args: Word[],
  spec: ScanSpec,
): { opts: Opt[]; operands: Word[]; terminated: boolean } {
  const opts: Opt[] = [];
  const operands: Word[] = [];
  const short = spec.short ?? "";
  const long = spec.long ?? [];
  const optional = spec.optionalValue ?? [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      return { opts, operands, terminated: true };
    }
    if (!v.startsWith("-") || v === "-") {
      if (spec.stopAtOperand) {
        operands.push(...args.slice(i));
        return { opts, operands, terminated: false };
      }
      operands.push(w);
      continue;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq < 0 ? v : v.slice(0, eq);
      if (eq >= 0) opts.push({ name, value: v.slice(eq + 1) });
      else if (long.includes(name.slice(2)) && !optional.includes(name) && i + 1 < args.length) {
        opts.push({ name, value: args[++i]!.value });
      } else opts.push({ name });
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(v)) {
      opts.push({ name: v });
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      const name = `-${c}`;
      if (optional.includes(name)) {
        const value = v.slice(j + 1);
        opts.push(value ? { name, value } : { name });
        break;
      }
      if (short.includes(c)) {
        const attached = v.slice(j + 1);
        if (attached) opts.push({ name, value: attached });
        else if (i + 1 < args.length) opts.push({ name, value: args[++i]!.value });
        else opts.push({ name });
        break;
      }
      opts.push({ name });
    }
  }
  return { opts, operands, terminated: false };
}
