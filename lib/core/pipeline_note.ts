// A note for a command whose exit status says nothing about the program the agent cares about:
// `npm test 2>&1 | tail -50` exits with tail's 0 even when the tests failed. The shell tool
// already returns the output's tail, so the fix is to drop the `| tail`. Pure.

import { parseCommandLine } from "./shell_parse.ts";

/**
 * The note for a successful command line whose last top-level pipeline ends in `tail`;
 * undefined for anything else.
 */
export function maskedStatusNote(
  command: string,
  exitCode: number | undefined,
): string | undefined {
  if (exitCode !== 0) return undefined;
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return undefined;
  const top = parsed.commands.filter((c) => !c.inSubstitution && !c.background && !c.inLoop);
  const last = top[top.length - 1];
  if (!last || last.pipelineLength < 2 || last.pipelineIndex !== last.pipelineLength - 1) {
    return undefined;
  }
  const program = last.words[0]?.value.split("/").pop();
  if (program !== "tail") return undefined;
  // Which stages came before is not always a simple command (`( … ) | tail`): name the tail.
  const tail = last.text.trim();
  return `[Exit 0 is tail's: the exit status of what runs before \`| ${tail}\` is lost in ` +
    "the pipeline. The shell tool already returns the end of the output, so run the command " +
    `without \`| ${tail}\` to see its own status (or start with \`set -o pipefail; \`).]`;
}
