// What a parse yields: words after quote removal, redirections, simple commands with where they
// run (pipeline, loop, background, substitution), and the error for input that is not bash.

/** One word of a command after quote removal. */
export interface Word {
  /** The word as written in the source. */
  raw: string;
  /** The word after quote and escape removal; expansions are kept as their source text. */
  value: string;
  /** Some part was quoted or escaped (so it is never a reserved word or an assignment). */
  quoted: boolean;
  /** The value depends on an expansion (`$x`, `${x}`, `$(…)`, backticks): not a literal. */
  expands: boolean;
  /** An unquoted glob character (`*`, `?`, `[`) appears in it. */
  glob: boolean;
}

export interface Redirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-` or `<<<`. */
  op: string;
  /** The file descriptor written before the operator (`2>`), if any. */
  fd?: number;
  /** The target word; for a heredoc, its delimiter. */
  target: Word;
  /** A heredoc's body: data, never parsed as commands. */
  body?: string;
}

/** A simple command: optional assignments, words, redirections. */
export interface SimpleCommand {
  /** The command as written (a slice of the source it was parsed from). */
  text: string;
  /** Offset of the command in the outermost command line (for ordering). */
  offset: number;
  assignments: Word[];
  words: Word[];
  redirects: Redirect[];
  /** Position in its own pipeline (0 = first program) and the pipeline's length. */
  pipelineIndex: number;
  pipelineLength: number;
  /** Its standard input is a pipe: it is a later stage, or inside a compound that is one. */
  fed: boolean;
  /** Inside the condition or body of a `while`, `until`, `for` or `select` loop. */
  inLoop: boolean;
  /** Started in the background with `&` (alone or inside a backgrounded compound). */
  background: boolean;
  /** Inside a command substitution, backticks or a process substitution. */
  inSubstitution: boolean;
}

export type ParseResult =
  | { ok: true; commands: SimpleCommand[] }
  | { ok: false; error: string; offset: number };

/** Refusal to guess: the input is not a complete bash command line. */
export class ShellSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
    this.name = "ShellSyntaxError";
  }
}
