// Worst-case growth of the edit algorithms (the str_replace ladder, its diagnostics, line edits,
// the result diff) on hostile inputs: each case runs at doubling sizes and prints a Markdown table
// of milliseconds, so a super-linear path shows as a time that quadruples per row.
//
//   deno run -A scripts/bench/edit_worst_case_bench.ts [--max 204800] [--budget-ms 8000] [--only name,...]
//
// A case stops growing once one size took longer than the budget (the row says so).

import { parseArgs } from "node:util";
import { startServer, tempDir } from "../../tests/_harness.ts";
import { planStrReplace } from "../../lib/core/edit/str_replace/mod.ts";
import { renderEditDiff } from "../../lib/core/edit/edit_diff.ts";
import { splicesBetween } from "../../lib/core/edit/edit_log.ts";
import { planLineEdits } from "../../lib/core/edit/edit_plan.ts";
import { parseEditOps } from "../../lib/core/edit/edit_ops.ts";
import { hashHex, hashLine } from "../../lib/core/edit/line_id.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import { linePrint } from "../../lib/core/edit/shown_lines.ts";
import { splitLines, type TextDoc } from "../../lib/core/text/text_file.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function docOf(text: string): TextDoc {
  const { lines, eols } = splitLines(text);
  return { encoding: "utf-8", bom: false, lines, eols };
}

const id = (lines: readonly string[], n: number) => `${n}:${hashHex(hashLine(lines[n - 1]!))}`;

/** Runs the call; an AnchorError is an answer too (NO_MATCH, AMBIGUOUS_MATCH, ...). */
function answer(call: () => unknown): string {
  try {
    call();
    return "ok";
  } catch (e) {
    if (e instanceof AnchorError) return e.code;
    if (e instanceof RangeError) return "crash";
    throw e;
  }
}

/** Each case builds its input for size n (outside the timing) and returns the call to time. */
export const CASES: Record<string, { what: string; build: (n: number) => () => string }> = {
  newlines: {
    what: 'str_replace: old_text of n "\\n" on a 20-line file (NO_MATCH)',
    build: (n) => {
      const doc = docOf(Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(""));
      const oldText = "\n".repeat(n);
      return () => answer(() => planStrReplace(doc, { oldText, newText: "x" }, "f.txt"));
    },
  },
  replace_all_lines: {
    what: 'str_replace replace_all: "a" → "b" on a file of n lines "a"',
    build: (n) => {
      const doc = docOf("a\n".repeat(n));
      return () =>
        answer(() => planStrReplace(doc, { oldText: "a", newText: "b", replaceAll: true }, "f"));
    },
  },
  replace_all_one_line: {
    what: 'str_replace replace_all: "a" → "bb" on one line of n "a"s',
    build: (n) => {
      const doc = docOf("a".repeat(n) + "\n");
      return () =>
        answer(() => planStrReplace(doc, { oldText: "a", newText: "bb", replaceAll: true }, "f"));
    },
  },
  near_miss_repeated: {
    what: 'str_replace: n/2 lines "foo bar" + "zzz" on n lines "foo bar" (fuzzy + NO_MATCH)',
    build: (n) => {
      const doc = docOf("foo bar\n".repeat(n));
      const oldText = "foo bar\n".repeat(n / 2) + "zzz";
      return () => answer(() => planStrReplace(doc, { oldText, newText: "x" }, "f.txt"));
    },
  },
  near_miss_long_line: {
    what: "str_replace: a near miss of one n-character line (NO_MATCH)",
    build: (n) => {
      const line = Array.from({ length: n }, (_, i) => "abcdefghij"[i % 10]).join("");
      const doc = docOf(`${line}\n`);
      const oldText = line.slice(0, -1) + "Z";
      return () => answer(() => planStrReplace(doc, { oldText, newText: "x" }, "f.txt"));
    },
  },
  near_miss_many_lines: {
    what: "str_replace: a 3-line near miss on an n-line file of distinct lines (NO_MATCH)",
    build: (n) => {
      const doc = docOf(Array.from({ length: n }, (_, i) => `const v${i} = ${i};\n`).join(""));
      const oldText = "const v1 = 2;\nconst v2 = 3;\nconst v3 = 4;";
      return () => answer(() => planStrReplace(doc, { oldText, newText: "x" }, "f.txt"));
    },
  },
  escaped: {
    what: 'str_replace: old_text of n/2 literal "\\n" escapes on a 20-line file',
    build: (n) => {
      const doc = docOf(Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(""));
      const oldText = "\\n".repeat(n / 2);
      return () => answer(() => planStrReplace(doc, { oldText, newText: "x" }, "f.txt"));
    },
  },
  reindent: {
    what: "str_replace fuzzy: √n old_text lines at √n depths, n new lines to re-indent",
    build: (n) => {
      // √n distinct depths cost O(n) characters; every new line is at a depth old_text lacks.
      const depths = Math.max(1, Math.floor(Math.sqrt(n)));
      const lines = Array.from({ length: depths }, (_, i) => `${" ".repeat(i + 1)}x${i}`);
      const doc = docOf(lines.map((l) => `\t${l}`).join("\n") + "\n");
      const oldText = lines.join("\n");
      const newText = Array.from({ length: n }, (_, i) => `y${i}`).join("\n");
      return () => answer(() => planStrReplace(doc, { oldText, newText }, "f.txt"));
    },
  },
  batch_many_ops: {
    what: "batch_edit: n one-line replaces on an n-line file",
    build: (n) => {
      const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
      const doc = docOf(lines.join("\n") + "\n");
      const ops = parseEditOps(
        lines.map((_, i) => ({ op: "replace", start: id(lines, i + 1), content: `new ${i}\n` })),
      );
      return () => answer(() => planLineEdits(doc, ops, { path: "f.txt" }));
    },
  },
  batch_overlapping: {
    what: "batch_edit: n/100 replaces of the whole n-line file, shown (OVERLAPPING_OPERATIONS)",
    build: (n) => {
      const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
      const doc = docOf(lines.join("\n") + "\n");
      const raw = Array.from({ length: Math.max(2, n / 100) }, () => ({
        op: "replace",
        start: id(lines, 1),
        end: id(lines, n),
        content: "x\n",
      }));
      const ops = parseEditOps(raw);
      const shown = { known: true, hashAt: (l: number) => hashLine(lines[l - 1] ?? "") };
      return () => answer(() => planLineEdits(doc, ops, { path: "f.txt", shown }));
    },
  },
  batch_stale: {
    what: "batch_edit: n/2 one-line replaces whose ids all went stale (STALE_LINE_ID report)",
    build: (n) => {
      const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
      const doc = docOf(lines.map((l) => `${l}!`).join("\n") + "\n");
      const raw = Array.from({ length: n / 2 }, (_, i) => ({
        op: "replace",
        start: id(lines, 2 * i + 1),
        content: "x\n",
      }));
      const ops = parseEditOps(raw);
      return () => answer(() => planLineEdits(doc, ops, { path: "f.txt" }));
    },
  },
  batch_interior: {
    what: "batch_edit: n/3 three-line replaces of equal lines, middles changed since shown",
    build: (n) => {
      const m = Math.floor(n / 3) * 3;
      const was = Array.from({ length: m }, () => "x");
      const now = was.map((l, i) => (i % 3 === 1 ? "y" : l));
      const doc = docOf(now.join("\n") + "\n");
      const raw = Array.from({ length: m / 3 }, (_, k) => ({
        op: "replace",
        start: id(was, 3 * k + 1),
        end: id(was, 3 * k + 3),
        content: "z\n",
      }));
      const ops = parseEditOps(raw);
      const shown = {
        known: true,
        hashAt: (l: number) => hashLine(was[l - 1] ?? ""),
        printAt: (l: number) => linePrint(was[l - 1] ?? ""),
      };
      return () => answer(() => planLineEdits(doc, ops, { path: "f.txt", shown }));
    },
  },
  edit_log_rewrite: {
    what: "own-edit log (every edit's line splices): every one of n lines changed",
    build: (n) => {
      const a = Array.from({ length: n }, (_, i) => `old ${i}`);
      const b = Array.from({ length: n }, (_, i) => `new ${i}`);
      return () => String(splicesBetween(a, b).length);
    },
  },
  diff_rewrite: {
    what: "result diff: every one of n lines changed",
    build: (n) => {
      const a = Array.from({ length: n }, (_, i) => `old ${i}`);
      const b = Array.from({ length: n }, (_, i) => `new ${i}`);
      return () => String(renderEditDiff(a, b).added);
    },
  },
  diff_interleaved: {
    what: "result diff: every other one of n lines changed",
    build: (n) => {
      const a = Array.from({ length: n }, (_, i) => `line ${i}`);
      const b = a.map((l, i) => (i % 2 ? `${l}!` : l));
      return () => String(renderEditDiff(a, b).added);
    },
  },
};

/**
 * Through the real server (this checkout's main.ts, or --main another's): str_replace with n
 * newlines as old_text on a 20-line file, and a ping sent 100 ms into it: both answer times.
 */
async function serverTable(max: number, main: string | undefined): Promise<void> {
  await using dir = await tempDir("anchorfs-worst-case-bench-");
  const file = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
  await Deno.writeTextFile(`${dir.path}/f.txt`, file);
  await using server = await startServer({
    client: "v1",
    args: ["--path", dir.path],
    ...(main ? { main } : {}),
  });
  print(
    "| newlines in old_text | str_replace answered (ms) | ping sent 100 ms later answered after (ms) |",
  );
  print("|---:|---:|---:|");
  for (let n = 12_500; n <= max; n *= 2) {
    const t = performance.now();
    // The v1 client takes request options third (the harness's call passes them second).
    const edit = server.client.callTool(
      {
        name: "text_editor",
        arguments: {
          command: "str_replace",
          path: "f.txt",
          old_text: "\n".repeat(n),
          new_text: "x",
        },
      },
      undefined,
      { timeout: 600_000 },
    ).then(() => performance.now() - t);
    // The ping leaves 100 ms later, once the server is inside the edit.
    await new Promise((r) => setTimeout(r, 100));
    const sent = performance.now();
    const ping = server.client.ping({ timeout: 600_000 }).then(() => performance.now() - sent);
    const [e, p] = await Promise.all([edit, ping]);
    print(`| ${n} | ${e.toFixed(0)} | ${p.toFixed(0)} |`);
  }
}

export function sizes(max: number): number[] {
  const out: number[] = [];
  for (let n = 3200; n <= max; n *= 2) out.push(n);
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      max: { type: "string", default: "204800" },
      "budget-ms": { type: "string", default: "8000" },
      only: { type: "string" },
      server: { type: "boolean", default: false },
      main: { type: "string" },
    },
  });
  if (values.server) {
    await serverTable(Number(values.max), values.main);
    Deno.exit(0);
  }
  const budget = Number(values["budget-ms"]);
  const names = values.only ? values.only.split(",") : Object.keys(CASES);
  const ns = sizes(Number(values.max));
  print(`| case | ${ns.map((n) => `n=${n}`).join(" | ")} |`);
  print(`|---|${ns.map(() => "---:").join("|")}|`);
  for (const name of names) {
    const c = CASES[name];
    if (!c) throw new Error(`unknown case ${name}`);
    const cells: string[] = [];
    let over = false;
    for (const n of ns) {
      if (over) {
        cells.push("—");
        continue;
      }
      const call = c.build(n);
      const t = performance.now();
      const said = call();
      const ms = performance.now() - t;
      if (said === "crash") {
        cells.push("crash (stack overflow)");
        over = true;
        continue;
      }
      cells.push(ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
      if (ms > budget) over = true;
    }
    print(`| ${c.what} | ${cells.join(" | ")} |`);
  }
}
