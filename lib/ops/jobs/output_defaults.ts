// The default sizes of a shell or jobs result's output, alone: the flag checks of `anchorfs mcp`
// (lib/mcp/flags.ts) run before the rest of the server loads and need only these numbers.

/** Wire bytes of output tail a result shows by default (the model reads it; more on request). */
export const DEFAULT_TAIL_BYTES = 4 * 1024;

/** Lines of output a passing run (exit 0) shows by default: its summary, not a tail to scroll. */
export const DEFAULT_PASSING_LINES = 10;
