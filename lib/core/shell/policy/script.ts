// Walks a script down to the programs it runs: parses it, tracks `cd`, peels assignments and
// wrappers (env, sudo, timeout, xargs…), recurses into shells, eval and ssh, and hands each
// program to the rule table. Judges only; rendering the refusal is the entry's job.

import { EDITOR_REASON } from "./policy_messages.ts";
import { parseCommandLine, type SimpleCommand, type Word } from "../parse/mod.ts";
import {
  baseName,
  type Invocation,
  joinOn,
  type Refusal,
  refuse,
  type Scope,
} from "./invocation.ts";
import { heredocBody, isPseudoFile, stdinFile } from "./redirects.ts";
import { judgeProgram } from "./rules.ts";
import { scanArgs, type ScanSpec } from "./scan_args.ts";
import { sshRemoteRun } from "./ssh.ts";
import { viewCalls } from "./suggest.ts";

// bash -c inside ssh inside eval…: deeper than this is not something an agent writes by hand.
const MAX_NESTING = 8;

export function judgeScript(script: string, scope: Scope): Refusal | undefined {
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
  let cwd = scope.runsOn?.dir ?? scope.startDir;
  for (const [k, cmd] of parsed.commands.entries()) {
    const refusal = judgeSimple(cmd, scope, cwd);
    if (refusal) return withFilterStage(refusal, cmd, parsed.commands[k + 1], scope, cwd);
    // `cd /x && grep …`: later suggestions name paths the way the command meant them.
    const [first, target] = cmd.words;
    if (first?.value === "cd" && target && !target.expands && cmd.words.length === 2) {
      cwd = joinOn(scope.paths, cwd, target.value);
    }
  }
  return undefined;
}

const FILTERS = new Set(["grep", "egrep", "fgrep", "rg", "head", "tail"]);

/**
 * `cat f | grep x` and `cat f | head -20`: the read is refused as cat's, but what the agent
 * wanted is the filter applied to the file, so the calls offered are those of the filter stage
 * run on the file itself (`grep x f` → view with content; `head -20 f` → view with start/end).
 * Only for a plain `cat` of one literal file and a next stage that reads nothing but the pipe.
 */
function withFilterStage(
  refusal: Refusal,
  cmd: SimpleCommand,
  next: SimpleCommand | undefined,
  scope: Scope,
  cwd: string | undefined,
): Refusal {
  if (refusal.rule !== "read_file" || !next || !next.fed) return refusal;
  if (next.pipelineIndex !== cmd.pipelineIndex + 1 || next.offset <= cmd.offset) return refusal;
  const [program, ...operands] = cmd.words;
  if (!program || program.expands || baseName(program.value) !== "cat") return refusal;
  const file = operands.length === 1 ? operands[0]! : undefined;
  if (!file || file.expands || file.glob || file.value.startsWith("-")) return refusal;
  if (cmd.redirects.length > 0 || cmd.assignments.length > 0) return refusal;
  const filter = next.words[0];
  if (!filter || filter.expands || !FILTERS.has(baseName(filter.value))) return refusal;
  // A stage that names files of its own is refused on its own; this one only filters the pipe.
  if (judgeSimple(next, scope, cwd)) return refusal;
  const onFile: SimpleCommand = {
    ...next,
    words: [...next.words, file],
    fed: false,
    pipelineIndex: 0,
    pipelineLength: 1,
  };
  const direct = judgeSimple(onFile, scope, cwd);
  if (!direct?.calls || !["read_file", "search_text"].includes(direct.rule)) return refusal;
  return { ...refusal, calls: direct.calls };
}

function withHost(r: Refusal, scope: Scope): Refusal {
  if (scope.host) r.host = scope.host;
  return r;
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

type WordFlags = { bounded: boolean; implicitFiles: boolean };

function judgeWords(
  words: Word[],
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
  flags: WordFlags,
): Refusal | undefined {
  let bounded = flags.bounded;
  for (;;) {
    let i = 0;
    while (i < words.length && isAssignment(words[i]!)) i++;
    const word = words[i];
    // Nothing runs (an assignment or redirection alone), or the program is only known at run
    // time (`$CMD file`): nothing to judge.
    if (!word || word.expands || word.value === "") return undefined;
    const name = baseName(word.value);
    const rest = words.slice(i + 1);
    const step = unwrapCommand(name, rest, cmd, scope, cwd, bounded, flags);
    if (step === undefined) return judgeRun(name, rest, cmd, scope, cwd, bounded, flags);
    if ("verdict" in step) return step.verdict;
    words = step.next;
    if (step.bounded) bounded = true;
  }
}

/** A wrapper's effect: judge these words next (`timeout` bounds them), or a verdict already. */
type Unwrapped = { next: Word[]; bounded?: true } | { verdict: Refusal | undefined };

/**
 * Commands that run the rest of their words as a command (`env`, `sudo`, `timeout`, ...): what
 * runs next; undefined when `name` is not such a wrapper.
 */
function unwrapCommand(
  name: string,
  rest: Word[],
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
  bounded: boolean,
  flags: WordFlags,
): Unwrapped | undefined {
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
        return { verdict: judgeScript(script, { ...scope, depth: scope.depth + 1 }) };
      }
      return { next: operands };
    }
    case "command": {
      const { opts, operands } = scanArgs(rest, { stopAtOperand: true });
      if (opts.some((o) => o.name === "-v" || o.name === "-V")) return { verdict: undefined };
      return { next: operands };
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
        return {
          verdict: refuse(
            invocation("sudoedit", operands, cmd, scope, cwd, bounded, flags),
            "edit_in_place",
            { reason: EDITOR_REASON },
          ),
        };
      }
      return { next: operands };
    }
    case "timeout": {
      const { operands } = scanArgs(rest, {
        short: "sk",
        long: ["signal", "kill-after"],
        stopAtOperand: true,
      });
      return { next: operands.slice(1), bounded: true }; // the duration
    }
    case "busybox":
      return { next: rest };
    default:
      return undefined;
  }
}

/** Judges the program `name` runs with `rest`: shells and eval judge their script. */
function judgeRun(
  name: string,
  rest: Word[],
  cmd: SimpleCommand,
  scope: Scope,
  cwd: string | undefined,
  bounded: boolean,
  flags: WordFlags,
): Refusal | undefined {
  const nestedScope = { ...scope, depth: scope.depth + 1 };
  switch (name) {
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
    case "ssh": {
      const remote = sshRemoteRun(rest, cmd);
      if (!remote) return undefined;
      const remoteScope: Scope = { host: remote.host, depth: scope.depth + 1 };
      for (const script of remote.scripts) {
        const refusal = judgeScript(script, remoteScope);
        if (refusal) return refusal;
      }
      return undefined;
    }
    case "xargs":
      return judgeXargs(rest, cmd, scope, cwd);
    default:
      return judgeProgram(invocation(name, rest, cmd, scope, cwd, bounded, flags));
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
  const judgeInner = (inner: Word[]) =>
    judgeWords(inner, cmd, scope, cwd, { bounded, implicitFiles: true });
  return { name, args, cmd, scope, cwd, bounded, implicitFiles: flags.implicitFiles, judgeInner };
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

function isAssignment(word: Word): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.raw);
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
