// Agent-session benchmark, no language model: a fixed script of the tasks a coding agent does on
// a real project (minimist 1.2.8 with its tests, vendored in scripts/bench/fixtures/agent_project/),
// played through the real MCP server over stdio. The script reads each result the way an agent
// would (ids parsed from the text, a retry built from an error), checks every task's outcome on
// disk, and reports calls and output bytes (the JSON of each tool result) per task and in total.
// Four more tasks change one function of a large real file (zod's classic/schemas.ts, attrs'
// _make.py: scripts/bench/fixtures/large_files/), once by reading the whole file and once through the
// outline and the symbol's view, and the report compares the two routes.
//
//   deno run -A scripts/bench/agent_session_bench.ts [--main path/to/main.ts] [--json]
// --main runs another checkout's server (e.g. main's) for a before/after comparison.

import { parseArgs } from "node:util";
import { REPO_ROOT, startServer, type TestServer } from "../../tests/_harness.ts";
import { ANSWER_TASKS } from "./_answer_tasks.ts";

const FIXTURE = `${REPO_ROOT}/scripts/bench/fixtures/agent_project`;
const LARGE_FILES = `${REPO_ROOT}/scripts/bench/fixtures/large_files`;
const enc = new TextEncoder();

interface TaskReport {
  name: string;
  calls: number;
  bytes: number;
  ok: boolean;
  note: string;
}

export class Agent {
  calls = 0;
  bytes = 0;
  constructor(readonly server: TestServer) {}

  async call(tool: string, args: Record<string, unknown>) {
    const r = await this.server.call(tool, args);
    this.calls += 1;
    this.bytes += enc.encode(JSON.stringify(r.raw.content ?? [])).length;
    return r;
  }
}

/** The id ("N:hh") of the first line in `text` shown as `N:hh|...` whose content includes `needle`. */
function idOf(text: string, needle: string): string {
  for (const line of text.split("\n")) {
    const m = /^[ +\-]?\s*(\d+:[0-9a-f]{2,})\|(.*)$/.exec(line);
    if (m && m[2]!.includes(needle)) return m[1]!;
  }
  throw new Error(`no line with ${JSON.stringify(needle)} in:\n${text.slice(0, 2000)}`);
}

async function sh(cwd: string, command: string): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command("bash", {
    args: ["-c", command],
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return {
    code: out.code,
    out: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

async function testsPass(dir: string): Promise<boolean> {
  return (await sh(dir, "npm test --silent")).code === 0;
}

type Task = (a: Agent, dir: string) => Promise<string | true>;

/** One line to change in one function of a large vendored file (copied under vendor/). */
interface FunctionChange {
  path: string;
  /** The function as the outline names it, and how its first line starts. */
  symbol: string;
  header: string;
  line: string;
  replacement: string;
}

const TS_CHANGE: FunctionChange = {
  path: "vendor/zod/schemas.ts",
  symbol: "httpUrl",
  header: "export function httpUrl(",
  line: "    hostname: regexes.domain,",
  replacement: "    hostname: regexes.domain, // any case: the domain regex ignores it",
};

const PY_CHANGE: FunctionChange = {
  path: "vendor/attrs/_make.py",
  symbol: "_ClassBuilder.add_str",
  header: "    def add_str(self):",
  line: '            msg = "__str__ can only be generated if a __repr__ exists."',
  replacement: '            msg = f"__str__ of {self._cls.__name__} needs a __repr__."',
};

/** The file has exactly that one line changed, and nothing else. */
async function changedOnly(
  dir: string,
  change: FunctionChange,
  original: string,
): Promise<string | true> {
  const now = await Deno.readTextFile(`${dir}/${change.path}`);
  return now === original.replace(`${change.line}\n`, `${change.replacement}\n`) ||
    `${change.path} is not the original with one line changed`;
}

/** Without an outline: read the whole file page by page, find the function, edit the line. */
function wholeFileRoute(change: FunctionChange): Task {
  return async (a, dir) => {
    const original = await Deno.readTextFile(`${dir}/${change.path}`);
    let args: Record<string, unknown> = { path: change.path };
    let seen = "";
    for (;;) {
      const v = await a.call("view", args);
      seen += `${v.text}\n`;
      const next = /Next: view (\{[^}]*\})/.exec(v.text);
      if (!next) break;
      args = JSON.parse(next[1]!);
    }
    const from = seen.indexOf(`|${change.header}`);
    if (from === -1) return `${change.header} not found in the pages read`;
    const id = idOf(seen.slice(from), change.line);
    const e = await a.call("batch_edit", {
      path: change.path,
      operations: [{ op: "replace", start: id, end: id, content: change.replacement }],
    });
    return e.isError ? e.text : await changedOnly(dir, change, original);
  };
}

/** With the outline: see the file's structure, view the one function, edit the line. */
function outlineRoute(change: FunctionChange): Task {
  return async (a, dir) => {
    const original = await Deno.readTextFile(`${dir}/${change.path}`);
    const o = await a.call("view", { path: change.path, outline: true });
    if (o.isError) return `outline: ${o.text}`;
    const s = await a.call("view", { path: change.path, symbol: change.symbol });
    if (s.isError || !s.text.includes(`|${change.header}`)) {
      return `symbol: ${s.text.slice(0, 400)}`;
    }
    const id = idOf(s.text, change.line);
    const e = await a.call("batch_edit", {
      path: change.path,
      operations: [{ op: "replace", start: id, end: id, content: change.replacement }],
    });
    return e.isError ? e.text : await changedOnly(dir, change, original);
  };
}

/** Runs a task on a fresh copy of the large files, so both routes start from the same file. */
function onFreshCopy(task: Task): Task {
  return async (a, dir) => {
    await sh(
      REPO_ROOT,
      `rm -rf '${dir}/vendor' && mkdir -p '${dir}/vendor' && cp -r '${LARGE_FILES}/.' '${dir}/vendor/'`,
    );
    return await task(a, dir);
  };
}

/** The outline tasks, in pairs: [whole file, outline] per language (the report compares them). */
const OUTLINE_PAIRS: [string, FunctionChange][] = [["TypeScript", TS_CHANGE], [
  "Python",
  PY_CHANGE,
]];

const TASKS: [string, Task][] = [
  ["explore the project", async (a, dir) => {
    const r = await a.call("view", { path: "." });
    return r.text.includes("index.js") && r.text.includes("test/") || `listing: ${dir}`;
  }],
  ["find where numbers are recognised", async (a) => {
    const r = await a.call("view", { path: ".", content: "isNumber(", pattern: "*.js" });
    return r.text.includes("index.js") || "search did not find index.js";
  }],
  ["move isNumber into lib/is_number.js", async (a, dir) => {
    const v = await a.call("view", { path: "index.js", start: 1, end: 25 });
    const start = idOf(v.text, "function isNumber(x)");
    const body = v.text.split("\n").filter((l) => /^\s*\d+:/.test(l));
    const endLine = body.find((l) => /^\s*17:/.test(l))!;
    const end = /(\d+:[0-9a-f]+)\|/.exec(endLine)![1]!;
    const x = await a.call("extract_lines", {
      from_path: "index.js",
      start,
      end,
      to_path: "lib/is_number.js",
      position: -1,
    });
    if (x.isError) return `extract failed: ${x.text}`;
    const e1 = await a.call("batch_edit", {
      path: "lib/is_number.js",
      operations: [
        { op: "insert", anchor: 0, content: "'use strict';\n" },
        { op: "insert", anchor: -1, content: "\nmodule.exports = isNumber;" },
      ],
    });
    if (e1.isError) return `export failed: ${e1.text}`;
    const e2 = await a.call("batch_edit", {
      path: "index.js",
      operations: [{
        op: "replace",
        start,
        end,
        content: "var isNumber = require('./lib/is_number');",
      }],
    });
    if (e2.isError) return `source edit failed: ${e2.text}`;
    const t = await a.call("shell", { command: "npm test" });
    return (!t.isError && /# ok/.test(t.text) && await testsPass(dir)) ||
      `tests: ${t.text.slice(-500)}`;
  }],
  ["rename isNumber to isNumeric across files", async (a, dir) => {
    const s = await a.call("view", { path: ".", content: "isNumber", pattern: "*.js" });
    const files = [...new Set([...s.text.matchAll(/^(\S+\.js)/gm)].map((m) => m[1]!))];
    for (const file of ["index.js", "lib/is_number.js"]) {
      if (!files.some((f) => f.endsWith(file))) return `search missed ${file}: ${s.text}`;
      const r = await a.call("text_editor", {
        command: "str_replace",
        path: file,
        old_text: "isNumber",
        new_text: "isNumeric",
        replace_all: true,
      });
      if (r.isError) return `${file}: ${r.text}`;
    }
    const left = await sh(dir, "grep -rn isNumber index.js lib || true");
    return (left.out.trim() === "" && await testsPass(dir)) || `left: ${left.out}`;
  }],
  ["add a parameter (allowHex) to isNumeric", async (a, dir) => {
    const v = await a.call("view", { path: "lib/is_number.js" });
    const sig = idOf(v.text, "function isNumeric(x)");
    const hex = idOf(v.text, "0x[0-9a-f]");
    // Two edits planned from one view, sent as two calls (as agents often do).
    const e1 = await a.call("batch_edit", {
      path: "lib/is_number.js",
      operations: [{ op: "insert", anchor: 0, content: "// allowHex: false rejects 0x numbers." }],
    });
    if (e1.isError) return `comment: ${e1.text}`;
    let e2 = await a.call("batch_edit", {
      path: "lib/is_number.js",
      operations: [
        { op: "replace", start: sig, content: "function isNumeric(x, allowHex) {" },
        {
          op: "replace",
          start: hex,
          content: "\tif (allowHex !== false && (/^0x[0-9a-f]+$/i).test(x)) { return true; }",
        },
      ],
    });
    if (e2.isError) {
      // Retry built only from the error text: its fresh ids.
      e2 = await a.call("batch_edit", {
        path: "lib/is_number.js",
        operations: [
          {
            op: "replace",
            start: idOf(e2.text, "function isNumeric(x)"),
            content: "function isNumeric(x, allowHex) {",
          },
          {
            op: "replace",
            start: idOf(e2.text, "0x[0-9a-f]"),
            content: "\tif (allowHex !== false && (/^0x[0-9a-f]+$/i).test(x)) { return true; }",
          },
        ],
      });
      if (e2.isError) return `retry: ${e2.text}`;
    }
    const text = await Deno.readTextFile(`${dir}/lib/is_number.js`);
    return (text.includes("function isNumeric(x, allowHex) {") &&
      text.includes("allowHex !== false") && text.startsWith("// allowHex") &&
      await testsPass(dir)) || `file: ${text}`;
  }],
  ["fix a failing test", async (a, dir) => {
    // Someone else broke an expectation.
    const path = `${dir}/test/num.js`;
    await Deno.writeTextFile(path, (await Deno.readTextFile(path)).replace("y: 5.67,", "y: 5.76,"));
    const t1 = await a.call("shell", { command: "npm test" });
    if (!/not ok/.test(t1.text)) return `failure not visible: ${t1.text.slice(-300)}`;
    const at = /at: (.+)/.exec(t1.text)?.[1] ?? "nums";
    const s = await a.call("view", { path: "test", content: `test('${at}'` });
    const file = /^(\S+\.js)/m.exec(s.text)?.[1] ?? "test/num.js";
    const v = await a.call("view", { path: file.startsWith("test") ? file : `test/${file}` });
    const bad = idOf(v.text, "y: 5.76,");
    const e = await a.call("batch_edit", {
      path: "test/num.js",
      operations: [{ op: "replace", start: bad, content: "\t\ty: 5.67," }],
    });
    if (e.isError) return e.text;
    const t2 = await a.call("shell", { command: "npm test" });
    return (!/not ok/.test(t2.text) && await testsPass(dir)) || t2.text.slice(-300);
  }],
  ["edit after an outside change", async (a, dir) => {
    const v = await a.call("view", { path: "README.md", start: 1, end: 12 });
    const title = idOf(v.text, "# minimist");
    const path = `${dir}/README.md`;
    await Deno.writeTextFile(
      path,
      `<!-- generated badge block -->\n${await Deno.readTextFile(path)}`,
    );
    let e = await a.call("batch_edit", {
      path: "README.md",
      operations: [{ op: "insert", anchor: title, content: "\nA vendored copy for benchmarks." }],
    });
    if (!e.isError) return "an outside change went unnoticed";
    e = await a.call("batch_edit", {
      path: "README.md",
      operations: [{
        op: "insert",
        anchor: idOf(e.text, "# minimist"),
        content: "\nA vendored copy for benchmarks.",
      }],
    });
    const text = await Deno.readTextFile(path);
    return (!e.isError && /# minimist.*\n\nA vendored copy/.test(text)) || e.text;
  }],
  ["a slow test run", async (a, dir) => {
    const r = await a.call("shell", { command: "npm run test:slow" });
    const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(JSON.stringify(r.raw))?.[1];
    if (!id) return `not a job: ${r.text.slice(0, 300)}`;
    let w = await a.call("jobs", { action: "wait", id });
    while (/still running/.test(w.text)) w = await a.call("jobs", { action: "wait", id });
    return (/# ok/.test(w.text) && await testsPass(dir)) || w.text.slice(-300);
  }],
  ["refused commands", async (a) => {
    const c = await a.call("shell", { command: "cat index.js" });
    const s = await a.call("shell", { command: "sleep 3" });
    const g = await a.call("shell", { command: "grep -rn isNumeric lib" });
    const refused = [c, s, g].filter((r) => /Refused/.test(r.text)).length;
    if (refused < 2) return `only ${refused} refused`;
    const v = await a.call("view", { path: "lib", content: "isNumeric" });
    return v.text.includes("is_number.js") || v.text;
  }],
  ...OUTLINE_PAIRS.flatMap(([language, change]): [string, Task][] => [
    [
      `change ${change.symbol} in a large ${language} file: whole file`,
      onFreshCopy(wholeFileRoute(change)),
    ],
    [
      `change ${change.symbol} in a large ${language} file: outline + symbol`,
      onFreshCopy(outlineRoute(change)),
    ],
  ]),
  ["delete a file and undo it", async (a, dir) => {
    const before = await Deno.readTextFile(`${dir}/CHANGELOG.md`);
    const d = await a.call("text_editor", { command: "delete", path: "CHANGELOG.md" });
    if (d.isError) return d.text;
    const u = await a.call("text_editor", { command: "undo_edit", path: "CHANGELOG.md" });
    if (u.isError) return u.text;
    return (await Deno.readTextFile(`${dir}/CHANGELOG.md`)) === before || "not restored";
  }],
];

/**
 * Counts the claude/channel notifications the session gets (a client that wakes the model on them
 * pays for each): their number and the bytes of their JSON.
 */
function countChannelNotes(server: TestServer): { notes: number; bytes: number } {
  const count = { notes: 0, bytes: 0 };
  // deno-lint-ignore no-explicit-any
  server.client.fallbackNotificationHandler = (n: any) => {
    if (n.method === "notifications/claude/channel") {
      count.notes++;
      count.bytes += enc.encode(JSON.stringify(n.params)).length;
    }
    return Promise.resolve();
  };
  return count;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { main: { type: "string" }, json: { type: "boolean" } },
  });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-agent-bench-" }));
  const state = await Deno.makeTempDir({ prefix: "anchorfs-agent-bench-state-" });
  try {
    await sh(REPO_ROOT, `cp -r '${FIXTURE}/.' '${dir}/'`);
    await using server = await startServer({
      client: "v1",
      args: ["--path", dir, "--foreground-window", "2", "--state-dir", state],
      ...(values.main && { main: values.main }),
    });
    const { tools } = await server.client.listTools();
    const toolsBytes = enc.encode(JSON.stringify(tools)).length;
    const channel = countChannelNotes(server);
    const reports: TaskReport[] = [];
    for (const [name, task] of [...TASKS, ...ANSWER_TASKS]) {
      const agent = new Agent(server);
      let verdict: string | true;
      try {
        verdict = await task(agent, dir);
      } catch (e) {
        verdict = `threw: ${(e as Error).message}`;
      }
      reports.push({
        name,
        calls: agent.calls,
        bytes: agent.bytes,
        ok: verdict === true,
        note: verdict === true ? "" : verdict.slice(0, 400),
      });
    }
    const calls = reports.reduce((n, r) => n + r.calls, 0);
    const bytes = reports.reduce((n, r) => n + r.bytes, 0);
    const routes = OUTLINE_PAIRS.map(([language, change]) => {
      const whole = reports.find((r) =>
        r.name.includes(`${change.symbol} in a large ${language} file: whole`)
      );
      const outline = reports.find((r) =>
        r.name.includes(`${change.symbol} in a large ${language} file: outline`)
      );
      return { language, whole, outline };
    });
    if (values.json) {
      // deno-lint-ignore no-console
      console.log(JSON.stringify({ toolsBytes, channel, calls, bytes, reports }, null, 2));
    } else {
      const rows = reports.map((r) =>
        `| ${r.name} | ${r.calls} | ${r.bytes} | ${r.ok ? "done" : `FAILED: ${r.note}`} |`
      );
      // deno-lint-ignore no-console
      console.log(
        [
          `tools/list: ${toolsBytes} bytes`,
          `notifications/claude/channel: ${channel.notes} (${channel.bytes} bytes)`,
          "",
          "| task | calls | output bytes | result |",
          "| --- | ---: | ---: | --- |",
          ...rows,
          `| total (${
            reports.filter((r) => r.ok).length
          }/${reports.length} done) | ${calls} | ${bytes} | |`,
          "",
          "| large file, one function changed | whole file: calls / bytes | outline + symbol: calls / bytes | bytes ratio |",
          "| --- | ---: | ---: | ---: |",
          ...routes.map(({ language, whole, outline }) =>
            `| ${language} | ${whole?.calls} / ${whole?.bytes} | ${outline?.calls} / ${outline?.bytes} | ${
              whole && outline ? `${((outline.bytes / whole.bytes) * 100).toFixed(1)} %` : "?"
            } |`
          ),
        ].join("\n"),
      );
    }
    if (reports.some((r) => !r.ok)) Deno.exitCode = 1;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
