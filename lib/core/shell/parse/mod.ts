// Shell command-line parsing for the shell policy: the simple commands a bash line would run
// (through lists, pipelines, subshells, groups, loops, $( ), backticks, process substitution) with
// quotes removed. Pure, never spawns a shell. This entry runs the parser; the lexer and the grammar
// are the other files of this folder (lexer.ts, parser.ts, syntax.ts).

import { INITIAL_CONTEXT, Parser } from "./parser.ts";
import { type ParseResult, ShellSyntaxError, type Word } from "./syntax.ts";

export { type SimpleCommand, type Word } from "./syntax.ts";

/**
 * Parses `source` into its simple commands, ordered by where they start. Unbalanced quotes,
 * an unterminated `$(`, `${`, backtick, `( … )`, `{ … }`, loop or `if` are reported as an error
 * instead of being guessed at.
 */
export function parseCommandLine(source: string): ParseResult {
  try {
    const parser = new Parser(source, 0, INITIAL_CONTEXT);
    parser.parseProgram();
    const commands = [...parser.out].sort((a, b) => a.offset - b.offset);
    return { ok: true, commands };
  } catch (e) {
    if (e instanceof ShellSyntaxError) return { ok: false, error: e.message, offset: e.offset };
    // Thousands of nested $( ( { levels exhaust the stack: refuse rather than crash.
    if (e instanceof RangeError) {
      return { ok: false, error: "the command line nests too deeply to be judged", offset: 0 };
    }
    throw e;
  }
}

/** Splits a plain argument string into words the way the shell would (used for `env -S`). */
export function splitWords(source: string): Word[] | undefined {
  const parsed = parseCommandLine(source);
  if (!parsed.ok || parsed.commands.length !== 1) return undefined;
  const only = parsed.commands[0]!;
  return [...only.assignments, ...only.words];
}
