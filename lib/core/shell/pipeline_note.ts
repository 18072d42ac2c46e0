// A note for a command whose exit status says nothing about the program the agent cares about:
// `npm test 2>&1 | tail -50` exits with tail's 0 even when the tests failed, and `| head` and
// `| grep` hide it the same way. The shell tool already returns the output's tail (and its log
// can be searched), so the fix is to drop the filter. No note when `set -o pipefail` is on. Pure.

import { parseCommandLine, type SimpleCommand } from "./parse/mod.ts";

/** The filters that end a pipeline and hide the exit status of what feeds them. */
const MASKING = new Set(["tail", "head", "grep", "egrep", "fgrep"]);

/**
 * The note for a command line whose last top-level pipeline ends in `tail`, `head` or `grep`,
 * when the status is that filter's (exit 0; also 1 for grep: "no line matched"); undefined for
 * anything else and when `set -o pipefail` is in effect before that pipeline.
 */
export function maskedStatusNote(
  command: string,
  exitCode: number | undefined,
): string | undefined {
  if (exitCode === undefined) return undefined;
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return undefined;
  const top = parsed.commands.filter((c) => !c.inSubstitution && !c.background && !c.inLoop);
  const last = top[top.length - 1];
  if (!last || last.pipelineLength < 2 || last.pipelineIndex !== last.pipelineLength - 1) {
    return undefined;
  }
  const program = last.words[0]?.value.split("/").pop() ?? "";
  if (!MASKING.has(program)) return undefined;
  const grep = program.endsWith("grep");
  if (exitCode !== 0 && !(grep && exitCode === 1)) return undefined;
  if (pipefailBefore(top, last) || onlyListingBefore(top, last)) return undefined;
  // Which stages came before is not always a simple command (`( … ) | tail`): name the filter.
  const filter = last.text.trim();
  const what = grep && exitCode === 1
    ? `Exit 1 is ${program}'s (no line matched)`
    : `Exit 0 is ${program}'s`;
  const instead = grep
    ? `run the command without \`| ${filter}\` and search its log instead (the result names ` +
      "the call)"
    : "the shell tool already returns the end of the output, so run the command without " +
      `\`| ${filter}\``;
  return `[${what}: the exit status of what runs before \`| ${filter}\` is lost in the ` +
    `pipeline. To see its own status, ${instead} (or start with \`set -o pipefail; \`).]`;
}

/** Programs whose status nobody waits for: `git log | head -5` needs no note. */
const LISTING = new Set([
  "ls",
  "cat",
  "echo",
  "printf",
  "find",
  "ps",
  "env",
  "printenv",
  "seq",
  "yes",
  "du",
  "df",
  "wc",
  "sort",
  "uniq",
  "cut",
  "awk",
  "sed",
  "tr",
  "jq",
  "rg",
  "grep",
  "head",
  "tail",
  "nl",
  "tree",
  "history",
  "dmesg",
  "journalctl",
  "docker",
  "kubectl",
  "which",
  "stat",
  "file",
  "diff",
]);
const GIT_LISTING = new Set([
  "log",
  "show",
  "diff",
  "status",
  "branch",
  "tag",
  "ls-files",
  "grep",
  "blame",
  "shortlog",
  "reflog",
  "remote",
  "config",
  "rev-list",
]);

/** Whether every earlier stage of `last`'s pipeline is a simple listing command. */
function onlyListingBefore(top: readonly SimpleCommand[], last: SimpleCommand): boolean {
  const at = top.indexOf(last);
  const stages = top.slice(Math.max(0, at - last.pipelineIndex), at);
  if (stages.length !== last.pipelineIndex) return false;
  return stages.every((c, i) => {
    if (c.pipelineIndex !== i || c.pipelineLength !== last.pipelineLength) return false;
    const program = c.words[0]?.value.split("/").pop() ?? "";
    if (program === "git") return GIT_LISTING.has(c.words[1]?.value ?? "");
    return LISTING.has(program);
  });
}

/** Whether a top-level `set -o pipefail` (also `set -euo pipefail`) runs before `last`. */
function pipefailBefore(top: readonly SimpleCommand[], last: SimpleCommand): boolean {
  let on = false;
  for (const c of top) {
    if (c.offset >= last.offset) break;
    if (c.words[0]?.value !== "set") continue;
    const words = c.words.map((w) => w.value);
    for (let i = 1; i < words.length - 1; i++) {
      if (words[i + 1] !== "pipefail") continue;
      const flag = words[i]!;
      if (/^-[a-zA-Z]*o$/.test(flag)) on = true;
      else if (/^\+[a-zA-Z]*o$/.test(flag)) on = false;
    }
  }
  return on;
}
