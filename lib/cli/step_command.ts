// Next steps as a person types them: the one table from tool arguments to `anchorfs …` flags
// (or to the shell command a step stands for), and the StepSyntax the CLI's result and error
// rendering use. A step with no command-line form falls back to the tool call, for a stated reason.

import {
  type ArgExample,
  type GuideStep,
  isCall,
  type NextStep,
  type StepSyntax,
  type ToolArgs,
  toolCallSyntax,
  type ToolName,
} from "../core/next_step.ts";
import { shellQuote } from "../core/shell/shell_quote.ts";

// Exported for tests.
/** How one tool argument is written on the command line. */
export type ArgForm =
  /** The subcommand's PATH (or ID) operand. */
  | { kind: "operand" }
  /** `--flag VALUE`; a boolean `true` is the bare `--flag`, `false` is left out. */
  | { kind: "flag"; flag: string }
  /** Picks the command itself (text_editor's command, jobs' and workdir's action). */
  | { kind: "selects"; forms: string }
  /** Written as part of the command's input (batch_edit's operations as JSON on stdin). */
  | { kind: "input"; how: string }
  /** No command-line form: `why` says what a person does instead. */
  | { kind: "fallback"; why: string };

// Exported for tests.
/** Every argument a next step may carry, per tool: the compiler requires an entry for each. */
export const CLI_ARG_FORMS: { [T in ToolName]: { [A in keyof ToolArgs[T]]-?: ArgForm } } = {
  view: {
    path: { kind: "operand" },
    start: { kind: "flag", flag: "--start" },
    end: { kind: "flag", flag: "--end" },
    content: { kind: "flag", flag: "--content" },
    regex: { kind: "flag", flag: "--regex" },
    context: { kind: "flag", flag: "--context" },
    pattern: { kind: "flag", flag: "--pattern" },
    include_hidden: { kind: "flag", flag: "--include-hidden" },
    max_depth: { kind: "flag", flag: "--max-depth" },
    full: {
      kind: "fallback",
      why: "dropped: every `anchorfs view` is a new session, so it always shows the whole file",
    },
    outline: { kind: "flag", flag: "--outline" },
    symbol: { kind: "flag", flag: "--symbol" },
  },
  text_editor: {
    command: {
      kind: "selects",
      forms: "str_replace → anchorfs edit; delete → rm -- (a local path); create and undo_edit " +
        "have no command (the tool call is shown)",
    },
    path: { kind: "operand" },
    old_text: { kind: "flag", flag: "--old" },
    new_text: { kind: "flag", flag: "--new" },
    replace_all: { kind: "flag", flag: "--replace-all" },
    file_text: { kind: "fallback", why: "create has no command: the tool call is shown" },
  },
  batch_edit: {
    path: { kind: "operand" },
    operations: { kind: "input", how: "printf '%s' JSON | anchorfs edit PATH --batch -" },
    allow_repeat: { kind: "input", how: 'the JSON becomes {"operations":[…],"allow_repeat":true}' },
  },
  extract_lines: {
    from_path: { kind: "fallback", why: "extract_lines has no command: the tool call is shown" },
    from_symbol: { kind: "fallback", why: "extract_lines has no command" },
    start: { kind: "fallback", why: "extract_lines has no command" },
    end: { kind: "fallback", why: "extract_lines has no command" },
    to_path: { kind: "fallback", why: "extract_lines has no command" },
    position: { kind: "fallback", why: "extract_lines has no command" },
  },
  shell: {
    command: { kind: "selects", forms: "the command line itself, run in a shell" },
    cwd: { kind: "input", how: "written before the command: cd CWD && COMMAND" },
  },
  workdir: {
    action: {
      kind: "selects",
      forms: "set → cd PATH (a local path); get → pwd; reset has no command",
    },
    path: { kind: "operand" },
  },
  jobs: {
    action: {
      kind: "selects",
      forms: "list → anchorfs jobs; read → anchorfs jobs tail; wait and kill → anchorfs jobs " +
        "wait|kill",
    },
    id: { kind: "operand" },
    bytes: { kind: "flag", flag: "--bytes" },
  },
};

/** The `--flag VALUE` words for the flag-form arguments of a step, in the order given. */
function flagWords<T extends ToolName>(tool: T, args: Partial<ToolArgs[T]>): string[] {
  const forms = CLI_ARG_FORMS[tool] as Record<string, ArgForm>;
  const words: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    const form = forms[name];
    if (form?.kind !== "flag" || value === undefined || value === false) continue;
    if (value === true) words.push(form.flag);
    // parseArgs reads a value starting with "-" as an option unless it is a number or joined.
    else if (/^-(?!\d+$)/.test(String(value))) words.push(shellQuote(`${form.flag}=${value}`));
    else words.push(form.flag, shellQuote(String(value)));
  }
  return words;
}

/** An ssh:// (or other URL) path: a person's shell cannot cd into it or rm it. */
function isRemote(path: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path);
}

/** A PATH operand: one starting with "-" would be read as an option, so it gets a "./". */
function operand(path: string): string {
  return shellQuote(path.startsWith("-") ? `./${path}` : path);
}

/**
 * What the command a person ran chose that its suggested commands must repeat to work: `anchorfs
 * jobs --state-dir DIR` reads another state dir, so a `jobs` step names the same one.
 */
interface CliStepOptions {
  /** The --state-dir given (not one from ANCHORFS_STATE_DIR: a rerun inherits that itself). */
  stateDir?: string;
}

/** `--state-dir DIR` (joined with "=" when DIR starts with "-", which parseArgs reads as a flag). */
function stateDirWords(dir: string): string[] {
  return dir.startsWith("-")
    ? [shellQuote(`--state-dir=${dir}`)]
    : ["--state-dir", shellQuote(dir)];
}

// Exported for tests.
/** The command line for a step, or undefined when it has none (the tool call is shown then). */
export function commandLineOf(s: NextStep, options: CliStepOptions = {}): string | undefined {
  switch (s.tool) {
    case "view":
      return ["anchorfs view", operand(s.args.path), ...flagWords("view", s.args)].join(" ");
    case "text_editor":
      if (s.args.command === "delete") {
        return isRemote(s.args.path) ? undefined : `rm -- ${shellQuote(s.args.path)}`;
      }
      if (s.args.command !== "str_replace") return undefined;
      return ["anchorfs edit", operand(s.args.path), ...flagWords("text_editor", s.args)]
        .join(" ");
    case "batch_edit": {
      const { path, operations, allow_repeat } = s.args;
      const json = JSON.stringify(allow_repeat ? { operations, allow_repeat } : operations);
      return `printf '%s' ${shellQuote(json)} | anchorfs edit ${operand(path)} --batch -`;
    }
    case "shell":
      return s.args.cwd === undefined || isRemote(s.args.cwd)
        ? s.args.command
        : `cd ${shellQuote(s.args.cwd)} && ${s.args.command}`;
    case "workdir":
      if (s.args.action === "get") return "pwd";
      return s.args.action === "set" && s.args.path !== undefined && !isRemote(s.args.path)
        ? `cd ${shellQuote(s.args.path)}`
        : undefined;
    case "jobs": {
      const { action, id } = s.args;
      const dir = options.stateDir === undefined ? [] : stateDirWords(options.stateDir);
      if (action === "list") return ["anchorfs jobs", ...dir].join(" ");
      if (id === undefined) return undefined;
      const verb = action === "read" ? "tail" : action;
      return [`anchorfs jobs ${verb}`, shellQuote(id), ...flagWords("jobs", s.args), ...dir]
        .join(" ");
    }
    case "extract_lines":
      return undefined;
  }
}

/**
 * Example arguments as a person types them: the flags (`--start 10`) or the operand; undefined
 * when one has no flag (the JSON fragment is shown then).
 */
function flagsOf(example: ArgExample): string | undefined {
  const forms = CLI_ARG_FORMS[example.tool] as Record<string, ArgForm>;
  const words: string[] = [];
  for (const [name, value] of Object.entries(example.args)) {
    const kind = forms[name]?.kind;
    if (kind === "operand") words.push(operand(String(value)));
    else if (kind !== "flag") return undefined;
  }
  words.push(...flagWords(example.tool, example.args));
  return words.length === 0 ? undefined : words.join(" ");
}

/**
 * Steps as a person runs them after a command that made the choices in `options`: the command
 * line (or flags) in backticks, else the tool call.
 */
export function cliSyntax(options: CliStepOptions = {}): StepSyntax {
  return (s: GuideStep) => {
    const line = isCall(s) ? commandLineOf(s, options) : flagsOf(s);
    return line === undefined ? toolCallSyntax(s) : `\`${line}\``;
  };
}

/** Steps as a person runs them: the command line (or flags) in backticks, else the tool call. */
export const cliStepSyntax: StepSyntax = cliSyntax();
