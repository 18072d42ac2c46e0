// Next steps as data. A hint or result text that suggests a call keeps that call as a step
// ({tool, args}) in place, so each interface writes it in its own syntax: the MCP adapter as a
// tool call (`view {"path":"a.txt"}`), the CLI as an `anchorfs …` command line (lib/cli). Pure.

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
    start: unknown;
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
export type NextStep = { [T in ToolName]: { readonly tool: T; readonly args: ToolArgs[T] } }[
  ToolName
];

/** A suggested call of `tool` with `args` (key order is kept: it is the order shown). */
export function step<T extends ToolName>(tool: T, args: ToolArgs[T]): NextStep {
  return { tool, args } as NextStep;
}

/**
 * Prose with next steps in place: `text[i]` comes before `next[i]`, and `text` has one entry more
 * than `next`. Build one with the `guide` tag.
 */
export interface Guide {
  /** The prose around the steps: one entry more than `next`. */
  readonly text: readonly string[];
  /** The suggested calls, in the order they appear. */
  readonly next: readonly NextStep[];
}

/** What may stand in a guide: prose, a number, a step, or another guide (spliced in). */
export type GuidePart = string | number | NextStep | Guide;

function isGuide(part: GuidePart): part is Guide {
  return typeof part === "object" && "next" in part;
}

/** Joins parts into one guide: strings and numbers become prose, steps and guides stay data. */
export function joinGuide(...parts: readonly GuidePart[]): Guide {
  const text = [""];
  const next: NextStep[] = [];
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
 * The corrected view call for a hint about one argument (search content, glob pattern): the
 * arguments as JSON text when no call is known; the view op makes a view step with the path.
 */
export type CallFormatter = (args: Partial<ToolArgs["view"]>) => GuidePart;

/** How an interface writes a step. */
export type StepSyntax = (step: NextStep) => string;

/** A step as a model writes the tool call: `view {"path":"a.txt","start":1}`. */
export const toolCallSyntax: StepSyntax = (s: NextStep): string =>
  `${s.tool} ${JSON.stringify(s.args)}`;

/** The text of a guide (or a plain string) with each step written in `syntax`. */
export function renderGuide(text: string | Guide, syntax: StepSyntax): string {
  if (typeof text === "string") return text;
  let out = text.text[0]!;
  text.next.forEach((s, i) => (out += syntax(s) + text.text[i + 1]!));
  return out;
}

/** The steps a text suggests (none for a plain string). */
export function stepsOf(text: string | Guide | undefined): readonly NextStep[] {
  return text === undefined || typeof text === "string" ? [] : text.next;
}
