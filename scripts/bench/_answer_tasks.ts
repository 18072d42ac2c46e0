// The agent-session benchmark's tasks of issue 23 ("every answer right"): the sequences where a
// tool text used to cost calls or mislead. Each task plays what an agent does with the texts it
// gets: it follows the call a result or error names, and stops when it has what it needs, so a
// text that answers wrong shows up as extra calls (or a wrong file). Run by agent_session_bench.ts.

import type { Agent } from "./agent_session_bench.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { REPO_ROOT } from "../../tests/_harness.ts";
import { loadCorpus, missingParts, replayCommand } from "./failure_excerpt_bench.ts";

type Task = (a: Agent, dir: string) => Promise<string | true>;

/** The first `view {...}` call written in `text` (hint or result), parsed; undefined if none. */
function viewCall(text: string, where?: RegExp): Record<string, unknown> | undefined {
  const part = where ? where.exec(text)?.[0] ?? "" : text;
  const m = /view (\{"path":[^{}]*\})/.exec(part);
  return m ? JSON.parse(m[1]!) : undefined;
}

const valueLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `exports.value${i + 1} = compute(${i + 1});`);

export const ANSWER_TASKS: [string, Task][] = [
  ["23: a failing run's failures in the first result", async (a, dir) => {
    // A real tape run: three failures among 401 passes, one with a 21-line YAML block.
    const entry = loadCorpus().find((e) => e.file === "tape.txt")!;
    await Deno.copyFile(`${REPO_ROOT}/tests/fixtures/failure_corpus/tape.txt`, `${dir}/tape.txt`);
    const r = await a.call("shell", { command: replayCommand("tape.txt", 1) });
    let seen = r.text;
    // What the result lacks, the agent reads from the log: the last 200 lines, then a search.
    for (
      const next of [/view \{"path":"anchorfs:[^}]*"start":-200\}/, /search it: view \{[^}]*\}/]
    ) {
      if (missingParts(seen, entry).length === 0) break;
      const call = viewCall(r.text, next);
      if (!call) break;
      if (call.content === "TEXT") call.content = "not ok";
      seen += (await a.call("view", { ...call, ...(call.content ? { context: 8 } : {}) })).text;
    }
    const missing = missingParts(seen, entry);
    return missing.length === 0 || `still missing ${missing.join(", ")}`;
  }],
  ["23: a passing command whose output is the answer", async (a) => {
    const command =
      'for i in $(seq 1 60); do echo "commit $i: a line of history that says what changed"; done';
    const r = await a.call("shell", { command });
    let seen = r.text;
    if (!seen.includes("commit 1: ")) {
      const call = viewCall(r.text, /more: view \{[^}]*\}/);
      if (call) seen += (await a.call("view", { path: call.path })).text;
    }
    return seen.includes("commit 1: ") || "the first commit was never seen";
  }],
  ["23: a range whose end line was never shown", async (a, dir) => {
    const lines = valueLines(200);
    await Deno.writeTextFile(`${dir}/lib/table.js`, lines.join("\n") + "\n");
    await a.call("view", { path: "lib/table.js", start: 60, end: 133 });
    // The agent remembers line 135's id from another place (a search, a diff): never shown here.
    const op = {
      op: "replace",
      start: formatLineId(62, lines[61]!),
      end: formatLineId(135, lines[134]!),
      content: "exports.table = compute(62, 135);",
    };
    const edit = () => a.call("batch_edit", { path: "lib/table.js", operations: [op] });
    let e = await edit();
    // As the error says: retry when it says the ids are current, else view what it names; at
    // last view the whole range.
    for (let attempt = 0; e.isError && attempt < 3; attempt++) {
      const named = viewCall(e.text);
      if (attempt === 0 && /Retry with the fresh ids/.test(e.text)) { /* as told */ }
      else if (attempt <= 1 && named) await a.call("view", named);
      else await a.call("view", { path: "lib/table.js", start: 62, end: 135 });
      e = await edit();
    }
    const now = await Deno.readTextFile(`${dir}/lib/table.js`);
    return (!e.isError && now.includes("exports.table = compute(62, 135);\nexports.value136")) ||
      `not applied: ${e.text.slice(0, 300)}`;
  }],
  ["23: an own edit inside a planned range", async (a, dir) => {
    await Deno.writeTextFile(`${dir}/lib/limits.js`, valueLines(30).join("\n") + "\n");
    const v = await a.call("view", { path: "lib/limits.js" });
    const id = (n: number) => new RegExp(`^(${n}:[0-9a-f]{2})\\|`, "m").exec(v.text)![1]!;
    // Two edits planned from one view: the first fixes lines 10-11, the second renames line 12
    // with lines 9-12 as context (its old text of 10-11 planned before the first edit).
    await a.call("batch_edit", {
      path: "lib/limits.js",
      operations: [{
        op: "replace",
        start: id(10),
        end: id(11),
        content: "exports.value10 = fixed(10);\nexports.value11 = fixed(11);",
      }],
    });
    const planned = [
      "exports.value9 = compute(9);",
      "exports.value10 = compute(10);",
      "exports.value11 = compute(11);",
      "exports.limit12 = compute(12);",
    ];
    const e = await a.call("batch_edit", {
      path: "lib/limits.js",
      operations: [{ op: "replace", start: id(9), end: id(12), content: planned.join("\n") }],
    });
    if (e.isError) {
      // The error shows the current lines: the agent keeps them and renames line 12 only.
      const line12 = /^(12:[0-9a-f]{2})\|/m.exec(e.text)?.[1];
      if (line12) {
        await a.call("batch_edit", {
          path: "lib/limits.js",
          operations: [{ op: "replace", start: line12, content: "exports.limit12 = compute(12);" }],
        });
      }
    }
    const now = await Deno.readTextFile(`${dir}/lib/limits.js`);
    return (now.includes("fixed(10);\nexports.value11 = fixed(11);\nexports.limit12")) ||
      "the first edit was reverted";
  }],
  ["23: paths as agents paste them", async (a, dir) => {
    const fails: string[] = [];
    const pasted: [Record<string, unknown>, string, Record<string, unknown>][] = [
      [{ path: "index.js:120" }, "120:", { path: "index.js", start: 110, end: 130 }],
      [{ path: `file://${dir}/README.md` }, "minimist", { path: `${dir}/README.md`, end: 20 }],
      [
        { path: "https://github.com/minimistjs/minimist/blob/v1.2.8/test/parse.js#L20" },
        "20:",
        { path: "test/parse.js", start: 10, end: 30 },
      ],
    ];
    for (const [args, want, fallback] of pasted) {
      const r = await a.call("view", args);
      if (!r.isError && r.text.includes(want)) continue;
      // The agent works out what it meant itself.
      const again = await a.call("view", fallback);
      if (again.isError) fails.push(String(args.path));
    }
    // Anthropic's editor names its arguments old_str/new_str.
    const edit = { command: "str_replace", path: "example/parse.js" };
    const change = { old: "require('../')", new: "require('../index.js')" };
    const r = await a.call("text_editor", { ...edit, old_str: change.old, new_str: change.new });
    if (r.isError && /old_text/.test(r.text)) {
      await a.call("text_editor", { ...edit, old_text: change.old, new_text: change.new });
    }
    const parse = await Deno.readTextFile(`${dir}/example/parse.js`);
    if (!parse.includes(change.new)) fails.push("str_replace with old_str/new_str");
    return fails.length === 0 || `not viewed: ${fails.join(", ")}`;
  }],
  ["23: a find view has no equivalent for", async (a) => {
    const command = 'find . -newer package.json -type f -not -path "./node_modules/*"';
    const r = await a.call("shell", { command });
    if (!r.isError) return true;
    // The refusal's workaround: write the list into a file, view it, delete it.
    const redirect = /`([^`]*> found\.txt)`/.exec(r.text)?.[1];
    if (!redirect) return `no way out: ${r.text.slice(0, 300)}`;
    await a.call("shell", { command: redirect });
    const v = await a.call("view", { path: "found.txt" });
    await a.call("text_editor", { command: "delete", path: "found.txt" });
    return !v.isError || v.text;
  }],
  ["23: a search whose match is in an excluded .venv", async (a, dir) => {
    await Deno.mkdir(`${dir}/.git/info`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.git/info/exclude`, ".venv\n");
    await Deno.mkdir(`${dir}/.venv/lib/site-packages/argparse`, { recursive: true });
    for (let i = 0; i < 40; i++) {
      await Deno.writeTextFile(`${dir}/.venv/lib/site-packages/argparse/m${i}.py`, "x = 1\n");
    }
    await Deno.writeTextFile(
      `${dir}/.venv/lib/site-packages/argparse/core.py`,
      "def parse_known_intermixed_args(self):\n",
    );
    for (const d of ["lib", "test"]) {
      await Deno.mkdir(`${dir}/${d}/__pycache__`, { recursive: true });
      await Deno.writeFile(`${dir}/${d}/__pycache__/m.pyc`, new Uint8Array([0, 1, 2]));
    }
    let r = await a.call("view", { path: ".", content: "parse_known_intermixed_args" });
    // The agent follows the first call the empty result names, until it finds the line.
    for (let i = 0; i < 3 && !r.text.includes("def parse_known_intermixed_args"); i++) {
      const call = viewCall(r.text.slice(r.text.indexOf(")") + 1));
      if (!call) break;
      r = await a.call("view", call);
    }
    return r.text.includes("def parse_known_intermixed_args") ||
      `not found: ${r.text.slice(0, 400)}`;
  }],
];
