// Next steps as data. A hint or result text that suggests a call keeps that call as a step
// ({tool, args}) in place, so each interface writes it in its own syntax: the MCP adapter as a
// tool call (`view {"path":"a.txt"}`), the CLI as an `anchorfs …` command line (lib/cli). An
// argument example ({"start":10} / `--start 10`) is kept the same way. Pure.

/** The arguments of each tool that a next step may suggest (a subset of each tool's schema). */
export interface ToolArgs {
  /** Read a file or range, list a directory, or search contents. */
  view: {
    path: string;
    start?: number | string;
    end?: number | string;
    content?: string;
    regex?: boolean;
    context?: number;
    pattern?: string;
    include_hidden?: boolean;
    max_depth?: number;
    full?: boolean;
    outline?: boolean;
    symbol?: string;
  };
  /** Create, str_replace, delete or undo an edit of one file. */
  text_editor: {
    command: "create" | "str_replace" | "delete" | "undo_edit";
    path: string;
    old_text?: string;
    new_text?: string;
    replace_all?: boolean;
    file_text?: string;
  };
  /** Several line edits by id on one file. */
  batch_edit: { path: string; operations: readonly unknown[]; allow_repeat?: boolean };
  /** Copy a line range into another (or the same) file. */
  extract_lines: {
    from_path: string;
    from_symbol?: string;
    start?: unknown;
    end?: unknown;
    to_path: string;
    position: unknown;
  };
  /** Run a command line (`cwd`: where, when not the session's directory). */
  shell: { command: string; cwd?: string };
  /** Get, set or reset the session's working directory. */
  workdir: { action: "get" | "set" | "reset"; path?: string };
  /** List, read, wait for or kill background jobs. */
  jobs: { action: "list" | "read" | "wait" | "kill"; id?: string; bytes?: number };
}

/** The tools a next step may name. */
export type ToolName = keyof ToolArgs;

/** One suggested call: a tool and its arguments. */
export type NextStep = {
  [T in ToolName]: { readonly tool: T; readonly args: ToolArgs[T]; readonly example?: never };
}[ToolName];

/**
 * Some arguments of a tool shown as an example, not a whole call: what an error about one
 * argument suggests when the call it belongs to is not known. The MCP adapter writes it as the
 * JSON fragment (`{"start":10}`), the CLI as its flag (`--start 10`).
 */
export type ArgExample = {
  [T in ToolName]: {
    readonly tool: T;
    readonly args: Partial<ToolArgs[T]>;
    readonly example: true;
  };
}[ToolName];

/** What a guide holds between its prose: a suggested call, or an example of some arguments. */
export type GuideStep = NextStep | ArgExample;

/** A suggested call of `tool` with `args` (key order is kept: it is the order shown). */
export function step<T extends ToolName>(tool: T, args: ToolArgs[T]): NextStep {
  return { tool, args } as NextStep;
}

/** Example arguments of `tool` (key order is kept), e.g. argExample("view", { start: 10 }). */
export function argExample<T extends ToolName>(tool: T, args: Partial<ToolArgs[T]>): ArgExample {
  return { tool, args, example: true } as ArgExample;
}

/** True when `s` is a whole call, not an example of some arguments. */
export function isCall(s: GuideStep): s is NextStep {
  return s.example !== true;
}

/**
 * Prose with next steps in place: `text[i]` comes before `next[i]`, and `text` has one entry more
 * than `next`. Build one with the `guide` tag.
 */
export interface Guide {
  /** The prose around the steps: one entry more than `next`. */
  readonly text: readonly string[];
  /** The suggested calls (and argument examples), in the order they appear. */
  readonly next: readonly GuideStep[];
}

/** What may stand in a guide: prose, a number, a step, or another guide (spliced in). */
export type GuidePart = string | number | GuideStep | Guide;

function isGuide(part: GuidePart): part is Guide {
  return typeof part === "object" && "next" in part;
}

/** Joins parts into one guide: strings and numbers become prose, steps and guides stay data. */
export function joinGuide(...parts: readonly GuidePart[]): Guide {
  const text = [""];
  const next: GuideStep[] = [];
  for (const part of parts) {
    if (typeof part !== "object") text[text.length - 1] += String(part);
    else if (isGuide(part)) {
      text[text.length - 1] += part.text[0]!;
      part.next.forEach((s, i) => {
        next.push(s);
        text.push(part.text[i + 1]!);
      });
    } else {
      next.push(part);
      text.push("");
    }
  }
  return { text, next };
}

/**
 * Tag for prose with steps: guide`Read it with ${step("view", { path })}.` — interpolated
 * strings and numbers are prose, steps stay data, guides are spliced in.
 *
 * @example
 * ```ts
 * import { guide, renderGuide, step, toolCallSyntax } from "@anchorfs/anchorfs";
 *
 * const hint = guide`Read it with ${step("view", { path: "a.txt" })}.`;
 * hint.next; // [{ tool: "view", args: { path: "a.txt" } }]
 * renderGuide(hint, toolCallSyntax); // 'Read it with view {"path":"a.txt"}.'
 * ```
 */
export function guide(strings: TemplateStringsArray, ...values: readonly GuidePart[]): Guide {
  const parts: GuidePart[] = [strings[0]!];
  values.forEach((value, i) => parts.push(value, strings[i + 1]!));
  return joinGuide(...parts);
}

/** Guides (or plain texts) joined with `separator` between them. */
export function joinGuides(items: readonly GuidePart[], separator: string): Guide {
  return joinGuide(...items.flatMap((item, i) => (i === 0 ? [item] : [separator, item])));
}

/**
 * The corrected view call for a hint about one argument (search content, glob pattern): an
 * argument example when no call is known; the view op makes a view step with the path.
 */
export type CallFormatter = (args: Partial<ToolArgs["view"]>) => GuidePart;

/** The CallFormatter when no call is known: the arguments as an example. */
export const viewArgExample: CallFormatter = (args) => argExample("view", args);

/** How an interface writes a step (and an argument example). */
export type StepSyntax = (step: GuideStep) => string;

/**
 * A step as a model writes the tool call: `view {"path":"a.txt","start":1}`; an argument example
 * as the JSON fragment of those arguments: `{"start":10}`.
 */
export const toolCallSyntax: StepSyntax = (s: GuideStep): string =>
  isCall(s) ? `${s.tool} ${JSON.stringify(s.args)}` : JSON.stringify(s.args);

/** The text of a guide (or a plain string) with each step written in `syntax`. */
export function renderGuide(text: string | Guide, syntax: StepSyntax): string {
  if (typeof text === "string") return text;
  let out = text.text[0]!;
  text.next.forEach((s, i) => (out += syntax(s) + text.text[i + 1]!));
  return out;
}

/**
 * A guide's prose (or a plain string) with each step as one `…`: its lines as the prose breaks
 * them, for layout decisions (does it end with a `[notice]` line?) that then come out the same
 * in every syntax. A step never starts a `[` line or ends one with `]`.
 */
export function guideShape(text: string | Guide): string {
  return typeof text === "string" ? text : text.text.join("…");
}

/** The calls a text suggests (none for a plain string; argument examples are not calls). */
export function stepsOf(text: string | Guide | undefined): readonly NextStep[] {
  return text === undefined || typeof text === "string" ? [] : text.next.filter(isCall);
}
