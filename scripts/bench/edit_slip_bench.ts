// False refusals of the repeated-context guard (lib/core/edit/edit_slip.ts) on real edits: replays a
// git repository's history as batch_edit operations (each -U0 hunk one replace or insert against
// the file before the commit) and counts the hunks the guard would refuse. Every hunk in a
// history was intended, so every refusal is a false one. Reports the chosen rule and, for
// comparison, the rule without the exemptions (blank lines, lone closing brackets).
//
//   deno run -A scripts/bench/edit_slip_bench.ts [--repo DIR] [--max-commits 400] [--show 10]

import { parseArgs } from "node:util";
import type { EditOp } from "../../lib/core/edit/edit_ops.ts";
import { findEditSlips } from "../../lib/core/edit/edit_slip.ts";
import { hashLine } from "../../lib/core/edit/line_id.ts";

const dec = new TextDecoder();

async function git(repo: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: repo, stdout: "piped", stderr: "null" })
    .output();
  return dec.decode(out.stdout);
}

interface FilePatch {
  blob: string;
  hunks: { start: number; count: number; lines: string[] }[];
}

function parsePatches(text: string): FilePatch[] {
  const files: FilePatch[] = [];
  let current: FilePatch | undefined;
  let hunk: FilePatch["hunks"][number] | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("diff --git")) {
      current = undefined;
      hunk = undefined;
      continue;
    }
    const index = /^index ([0-9a-f]+)\.\.[0-9a-f]+/.exec(line);
    if (index) {
      if (!/^0+$/.test(index[1]!)) {
        current = { blob: index[1]!, hunks: [] };
        files.push(current);
      }
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (h && current) {
      hunk = { start: Number(h[1]), count: h[2] === undefined ? 1 : Number(h[2]), lines: [] };
      current.hunks.push(hunk);
      continue;
    }
    if (hunk && line.startsWith("+") && !line.startsWith("+++")) hunk.lines.push(line.slice(1));
  }
  return files;
}

function opOf(h: FilePatch["hunks"][number], lines: readonly string[], i: number): EditOp {
  const id = (n: number) => ({ line: n, hash: hashLine(lines[n - 1] ?? "") });
  if (h.count === 0) {
    return h.start === 0
      ? { op: "insert", anchor: { kind: "start" }, lines: h.lines, what: `hunk ${i}` }
      : {
        op: "insert",
        anchor: { kind: "after", id: id(h.start) },
        lines: h.lines,
        what: `hunk ${i}`,
      };
  }
  return {
    op: "replace",
    start: id(h.start),
    end: id(h.start + h.count - 1),
    lines: h.lines,
    what: `hunk ${i}`,
  };
}

/** The rule without exemptions, for comparison: any exact repeat (trimmed) counts. */
function naiveSlips(lines: readonly string[], op: EditOp): number {
  if (op.lines.length === 0) return 0;
  const first = op.lines[0]!.trim();
  const last = op.lines.at(-1)!.trim();
  if (op.op === "insert") {
    return op.anchor.kind === "after" && lines[op.anchor.id.line - 1]?.trim() === first ? 1 : 0;
  }
  let n = 0;
  if (lines[op.start.line - 2]?.trim() === first) n++;
  if (lines[op.end.line]?.trim() === last) n++;
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      repo: { type: "string", default: new URL("../..", import.meta.url).pathname },
      "max-commits": { type: "string", default: "400" },
      show: { type: "string", default: "10" },
    },
  });
  const repo = values.repo!;
  const commits = (await git(repo, [
    "rev-list",
    "--no-merges",
    `--max-count=${values["max-commits"]}`,
    "HEAD",
  ])).split("\n").filter((c) => c !== "");
  let hunks = 0;
  let refused = 0;
  let naive = 0;
  const examples: string[] = [];
  for (const commit of commits) {
    const patch = await git(repo, [
      "show",
      "--format=",
      "-U0",
      "--full-index",
      "--no-color",
      "--no-renames",
      commit,
    ]);
    for (const file of parsePatches(patch)) {
      const text = await git(repo, ["cat-file", "-p", file.blob]);
      if (text.includes("\u0000")) continue;
      const lines = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
      file.hunks.forEach((h, i) => {
        if (h.count === 0 && h.lines.length === 0) return;
        hunks++;
        const op = opOf(h, lines, i);
        naive += naiveSlips(lines, op);
        const slips = findEditSlips(lines, [op]);
        if (slips.length > 0) {
          refused++;
          if (examples.length < Number(values.show)) {
            examples.push(
              `${commit.slice(0, 8)} ${op.op} at ${h.start}: repeats ${
                JSON.stringify(slips[0]!.text.trim())
              }`,
            );
          }
        }
      });
    }
  }
  // deno-lint-ignore no-console
  console.log(
    [
      `${commits.length} commits, ${hunks} hunks replayed as batch_edit operations`,
      `refused by the chosen rule: ${refused} (${
        (100 * refused / Math.max(1, hunks)).toFixed(2)
      } %)`,
      `refused without the exemptions (blank lines, closing brackets): ${naive}`,
      ...examples.map((e) => `  ${e}`),
    ].join("\n"),
  );
}

if (import.meta.main) await main();
