// Probe session: drives the real server (`deno run -A main.ts mcp`) through the v2 client the way
// reviewers do — a scripted agent session on a real project (calls and bytes counted, every error
// and empty result checked for a sentence and a next call) and attacker cases (FIFOs, devices,
// sparse and huge files, hostile names, escapes under --allow, concurrency, oversized messages,
// cancellation, runaway shells, kill -9 mid-job) — and prints one table per section with the
// server's peak RSS per case. A benchmark-style script, not a test: it reports, it does not fail.
//
//   deno run -A scripts/bench/probe_session.ts [--only agent|attack] [--case NAME] [--main path/main.ts]
//
// Everything happens in temporary directories, removed at the end (the 3 GB file is sparse).

// deno-lint-ignore-file no-console

import { parseArgs } from "node:util";
import { REPO_ROOT, startServer, type TestServer } from "../../tests/_harness.ts";
import { procStatusKb } from "./_reliability_server.ts";

const enc = new TextEncoder();
const FIXTURE = `${REPO_ROOT}/scripts/bench/fixtures/agent_project`;
const TOOL_CALL = /\b(view|batch_edit|text_editor|extract_lines|workdir|shell|jobs) \{/;

// ---------------------------------------------------------------------------------------------
// A server with call/byte counting, error-quality checks and a peak-RSS meter.

interface Outcome {
  text: string;
  isError: boolean;
  // deno-lint-ignore no-explicit-any
  raw: any;
  ms: number;
}

/** Findings about the texts the model reads: errors without a next call, empty answers. */
const findings: string[] = [];
const VERBOSE = Deno.args.includes("--verbose");
/** A probed server above this resident size is killed (the machine is shared). */
const RSS_CAP_MB = 1500;

function judgeText(label: string, tool: string, r: Outcome): void {
  const shellOutcome = (tool === "shell" || tool === "jobs") && /^`/.test(r.text);
  if (r.text.trim() === "") findings.push(`${label}: empty result text`);
  else if (r.isError && !shellOutcome && !TOOL_CALL.test(r.text) && !/\banchorfs\b/.test(r.text)) {
    findings.push(`${label}: error without a next call: ${JSON.stringify(r.text.slice(0, 600))}`);
  }
}

class Probe {
  calls = 0;
  bytes = 0;
  peakKb = 0;
  killedForMemory = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  constructor(readonly server: TestServer, readonly label: string) {}

  static async start(label: string, args: string[], main?: string): Promise<Probe> {
    const server = await startServer({
      client: "v2",
      args,
      ...(main && { main }),
    });
    return new Probe(server, label);
  }

  get pid(): number {
    return this.server.pid!;
  }

  rssMb(): number {
    return Math.round((procStatusKb(this.pid, "VmRSS") ?? 0) / 1024);
  }

  /** Starts a fresh peak measurement (resets the kernel's high-water mark, then samples). */
  meter(): void {
    try {
      Deno.writeTextFileSync(`/proc/${this.pid}/clear_refs`, "5");
    } catch { /* not permitted: the sampler still runs */ }
    this.peakKb = procStatusKb(this.pid, "VmRSS") ?? 0;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      const kb = procStatusKb(this.pid, "VmRSS") ?? 0;
      if (kb > this.peakKb) this.peakKb = kb;
      if (kb > RSS_CAP_MB * 1024 && !this.killedForMemory) {
        // The machine is shared: a server reading without bound is stopped, and that is the result.
        this.killedForMemory = true;
        try {
          Deno.kill(this.pid, "SIGKILL");
        } catch { /* gone */ }
      }
    }, 25);
  }

  peakMb(): number {
    const hwm = procStatusKb(this.pid, "VmHWM") ?? 0;
    return Math.round(Math.max(hwm, this.peakKb) / 1024);
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    // deno-lint-ignore no-explicit-any
    options?: any,
  ): Promise<Outcome> {
    const t0 = performance.now();
    const before = this.peakMb();
    if (VERBOSE) this.meter();
    const r = await this.server.call(tool, args, options);
    const out = { text: r.text, isError: r.isError, raw: r.raw, ms: performance.now() - t0 };
    this.calls += 1;
    this.bytes += enc.encode(JSON.stringify(r.raw.content ?? [])).length;
    judgeText(`${this.label} ${tool} ${JSON.stringify(args).slice(0, 80)}`, tool, out);
    if (VERBOSE) {
      const head = `${tool} ${JSON.stringify(args).slice(0, 100)}`;
      console.error(
        `  [${this.label}] ${head} → ${
          out.ms.toFixed(0)
        } ms, peak ${this.peakMb()} MB (was ${before})`,
      );
      console.error(`      ${JSON.stringify(r.text.slice(0, 700))}`);
    }
    return out;
  }

  async alive(): Promise<boolean> {
    try {
      const r = await this.server.call("workdir", {}, { timeout: 15_000 });
      return !r.isError;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.server.close();
  }
}

async function sh(cwd: string, command: string): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command("bash", {
    args: ["-c", command],
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** The id ("N:hh") of the first line shown as `N:hh|...` whose content includes `needle`. */
function idOf(text: string, needle: string): string {
  for (const line of text.split("\n")) {
    const m = /^[ +\-]?\s*(\d+:[0-9a-f]{2,})\|(.*)$/.exec(line);
    if (m && m[2]!.includes(needle)) return m[1]!;
  }
  throw new Error(`no line with ${JSON.stringify(needle)} in:\n${text.slice(0, 1500)}`);
}

const short = (s: string, n = 110) => s.replace(/\s+/g, " ").slice(0, n);

// ---------------------------------------------------------------------------------------------
// Agent session.

type Step = [string, (p: Probe, dir: string) => Promise<string>];

const AGENT_STEPS: Step[] = [
  ["view the project", async (p) => {
    const r = await p.call("view", { path: "." });
    return r.text.includes("index.js") ? "ok" : `FAIL ${short(r.text)}`;
  }],
  ["search", async (p) => {
    const r = await p.call("view", { path: ".", content: "isNumber(", pattern: "*.js" });
    const none = await p.call("view", { path: ".", content: "noSuchIdentifierAnywhere" });
    return r.text.includes("index.js") && /^No matches/.test(none.text)
      ? "ok"
      : `FAIL ${short(r.text)} / ${short(none.text)}`;
  }],
  ["edit by id", async (p, dir) => {
    const v = await p.call("view", { path: "index.js", start: 1, end: 20 });
    const id = idOf(v.text, "function hasKey(obj, keys)");
    const e = await p.call("batch_edit", {
      path: "index.js",
      operations: [{ op: "replace", start: id, content: "function hasKey(obj, keys) { // probe" }],
    });
    const ok = !e.isError && (await Deno.readTextFile(`${dir}/index.js`)).includes("// probe");
    return ok ? "ok" : `FAIL ${short(e.text)}`;
  }],
  ["formatter rewrites, stale ids refused", async (p, dir) => {
    const v = await p.call("view", { path: "index.js" });
    const moved = idOf(v.text, "module.exports = function (args, opts) {");
    const changed = idOf(v.text, "var key = keys[keys.length - 1];");
    const fmt = await sh(dir, `${Deno.execPath()} fmt --quiet index.js`);
    if (fmt.code !== 0) return `FAIL deno fmt: ${short(fmt.out)}`;
    const e1 = await p.call("batch_edit", {
      path: "index.js",
      operations: [{ op: "insert", anchor: moved, content: "  // probe: after the export" }],
    });
    const e2 = await p.call("batch_edit", {
      path: "index.js",
      operations: [{ op: "replace", start: changed, content: "  var key = keys.at(-1);" }],
    });
    if (!e1.isError || !e2.isError) return "FAIL a stale id was accepted after the formatter ran";
    const saysMoved = /moved|now (at|on) line/i.test(e1.text);
    const retry = await p.call("batch_edit", {
      path: "index.js",
      operations: [
        { op: "insert", anchor: idOf(e1.text, "module.exports = function"), content: "  // probe" },
        {
          op: "replace",
          start: idOf(e2.text, "var key = keys[keys"),
          content: "  var key = keys.at(-1);",
        },
      ],
    });
    return !retry.isError && saysMoved
      ? "ok (moved + changed ids refused → fresh ids → one retry)"
      : `FAIL moved named: ${saysMoved}; ${short(e1.text, 300)} / ${short(retry.text)}`;
  }],
  ["re-view after formatter", async (p) => {
    const r = await p.call("view", { path: "index.js" });
    return /changed since you last viewed|unchanged|\d+:[0-9a-f]{2}\|/.test(r.text)
      ? "ok"
      : `FAIL ${short(r.text)}`;
  }],
  ["batch_edit several ops", async (p, dir) => {
    const v = await p.call("view", { path: "test/num.js", start: 1, end: 12 });
    const first = /^\s*(\d+:[0-9a-f]{2})\|/m.exec(v.text)![1]!;
    const e = await p.call("batch_edit", {
      path: "test/num.js",
      operations: [
        { op: "insert", anchor: 0, content: "// probe header" },
        { op: "replace", start: first, content: "'use strict'; // probe" },
        { op: "insert", anchor: -1, content: "// probe footer" },
      ],
    });
    const text = await Deno.readTextFile(`${dir}/test/num.js`);
    return !e.isError && text.startsWith("// probe header\n'use strict'; // probe") &&
        text.trimEnd().endsWith("// probe footer")
      ? "ok"
      : `FAIL ${short(e.text)}`;
  }],
  ["extract_lines", async (p, dir) => {
    const v = await p.call("view", {
      path: "index.js",
      content: "function isNumber(x)",
      context: 5,
    });
    const start = idOf(v.text, "function isNumber(x)");
    const n = Number(start.split(":")[0]);
    const lines = (await Deno.readTextFile(`${dir}/index.js`)).split("\n");
    const endLine = lines.findIndex((l, i) => i >= n && l === "}") + 1;
    const end = await p.call("view", { path: "index.js", start: endLine, end: endLine });
    const endId = /(\d+:[0-9a-f]{2})\|/.exec(end.text)![1]!;
    const x = await p.call("extract_lines", {
      from_path: "index.js",
      start,
      end: endId,
      to_path: "lib/is_number.js",
      position: -1,
    });
    const copied = await Deno.readTextFile(`${dir}/lib/is_number.js`).catch(() => "");
    return !x.isError && copied.includes("function isNumber(x)") ? "ok" : `FAIL ${short(x.text)}`;
  }],
  ["undo", async (p, dir) => {
    const before = await Deno.readTextFile(`${dir}/test/num.js`);
    const u = await p.call("text_editor", { command: "undo_edit", path: "test/num.js" });
    const after = await Deno.readTextFile(`${dir}/test/num.js`);
    const again = await p.call("text_editor", { command: "undo_edit", path: "test/num.js" });
    return !u.isError && before !== after && !after.includes("// probe") && again.isError
      ? "ok (second undo refused with a next call)"
      : `FAIL ${short(u.text)} / ${short(again.text)}`;
  }],
  ["slow test run → job → notify → read/wait", slowTestRun],
  ["workdir set/reset", async (p) => {
    const s = await p.call("workdir", { action: "set", path: "test" });
    const v = await p.call("view", { path: "num.js", start: 1, end: 2 });
    const bad = await p.call("workdir", { action: "set", path: "no/such/dir" });
    const r = await p.call("workdir", { action: "reset" });
    const g = await p.call("workdir", { action: "get" });
    return !s.isError && !v.isError && bad.isError && !r.isError && !/\/test\b/.test(g.text)
      ? "ok"
      : `FAIL ${short(s.text)} / ${short(bad.text)} / ${short(g.text)}`;
  }],
];

async function slowTestRun(p: Probe, dir: string): Promise<string> {
  const updates: string[] = [];
  p.server.client.setNotificationHandler(
    "notifications/resources/updated",
    // deno-lint-ignore no-explicit-any
    (n: any) => void updates.push(n.params.uri),
  );
  let progress = 0;
  await Deno.writeTextFile(`${dir}/.slow_runs`, "");
  const r = await p.call("shell", {
    command: "echo run >> .slow_runs; SLOW_TESTS=13 npm test",
  }, {
    onprogress: () => progress++,
    timeout: 120_000,
  });
  // deno-lint-ignore no-explicit-any
  const link = (r.raw.content ?? []).find((c: any) => c.type === "resource_link");
  if (!link) return `FAIL not promoted: ${short(r.text)}`;
  const uri = String(link.uri);
  const id = uri.replace("anchorfs://jobs/", "");
  const listen = p.server.client.listen?.({ resourceSubscriptions: [uri] });
  const read = await p.call("jobs", { action: "read", id });
  let w = await p.call("jobs", { action: "wait", id });
  while (/still running/.test(w.text)) w = await p.call("jobs", { action: "wait", id });
  const deadline = Date.now() + 5000;
  while (!updates.includes(uri) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await listen?.close?.().catch?.(() => {});
  const runs = (await Deno.readTextFile(`${dir}/.slow_runs`)).trim().split("\n").length;
  const notes = `${progress} progress, notified ${updates.includes(uri)}, ran ${runs}×`;
  return !read.isError && /# ok|pass/i.test(w.text) && runs === 1
    ? `ok (${notes})`
    : `FAIL ${notes}: ${short(w.text)}`;
}

async function agentSession(main?: string): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-probe-agent-" }));
  const state = await Deno.makeTempDir({ prefix: "anchorfs-probe-state-" });
  await sh(REPO_ROOT, `cp -r '${FIXTURE}/.' '${dir}/'`);
  const p = await Probe.start("agent", ["--path", dir, "--state-dir", state], main);
  p.meter();
  const rows: string[] = [];
  try {
    for (const [name, step] of AGENT_STEPS) {
      const [c0, b0] = [p.calls, p.bytes];
      let verdict: string;
      try {
        verdict = await step(p, dir);
      } catch (e) {
        verdict = `FAIL threw ${short((e as Error).message, 200)}`;
      }
      rows.push(`| ${name} | ${p.calls - c0} | ${p.bytes - b0} | ${verdict} |`);
    }
    console.log(
      [
        "## Agent session (v2 client, minimist copy)",
        "",
        "| step | calls | bytes | result |",
        "| --- | ---: | ---: | --- |",
        ...rows,
        `| total | ${p.calls} | ${p.bytes} | peak RSS ${p.peakMb()} MB |`,
        "",
      ].join("\n"),
    );
  } finally {
    await p.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Attacker cases. One fixture tree; each case gets its own server (a clean RSS reading).

interface Fixture {
  root: string;
  proj: string;
  outside: string;
  state: string;
}

async function buildFixture(): Promise<Fixture> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-probe-attack-" }));
  const proj = `${root}/proj`;
  const script = `
    set -e
    mkdir -p proj/many proj/loop proj/names proj/src outside
    cd proj
    mkfifo pipe
    mknod null c 1 3 2>/dev/null || true
    { head -c 16384 /dev/urandom | base64; } > sparse.img && truncate -s 3G sparse.img
    { head -c 200000000 /dev/zero | tr '\\0' a; echo NEEDLE_AT_END; } > line200.txt
    { head -c 15000000 /dev/zero | tr '\\0' b; echo NEEDLE_AT_END; } > line15.txt
    (cd many && seq 1 100000 | sed 's/$/.txt/' | xargs touch)
    echo hello > many/1.txt
    ln -s b loop/a; ln -s a loop/b; ln -s . loop/self; ln -s .. loop/up
    printf 'one\\ntwo\\n' > names/$'new\\nline.txt'
    printf 'one\\ntwo\\n' > names/$'bad\\xffname.txt'
    printf 'one\\ntwo\\n' > names/-rf
    printf 'one\\ntwo\\n' > names/--help.txt
    printf 'one\\ntwo\\n' > names/' lead space.txt'
    for i in $(seq 1 200); do printf 'export const v%d = %d; // needle\\n' $i $i > src/f$i.ts; done
    echo secret > ../outside/secret.txt
    ln -s ../outside escape
  `;
  const r = await sh(root, script);
  if (r.code !== 0) throw new Error(`fixture: ${r.out}`);
  const state = await Deno.makeTempDir({ prefix: "anchorfs-probe-state-" });
  return { root, proj, outside: `${root}/outside`, state };
}

type AttackCase = {
  name: string;
  args?: (f: Fixture) => string[];
  run: (p: Probe, f: Fixture) => Promise<string>;
};

/** "ok"/"FAIL" plus the first words of each result: what the model read. */
function verdictOf(ok: boolean, ...results: Outcome[]): string {
  const texts = results.map((r) =>
    `${r.isError ? "E" : "R"} ${r.ms.toFixed(0)}ms: ${short(r.text, 90)}`
  );
  return `${ok ? "ok" : "FAIL"} — ${texts.join(" / ")}`;
}

const ATTACKS: AttackCase[] = [
  {
    name: "baseline: list and search 200 small files",
    run: async (p) => {
      const l = await p.call("view", { path: "src" });
      const s = await p.call("view", { path: "src", content: "needle" });
      const l2 = await p.call("view", { path: "src" });
      const s2 = await p.call("view", { path: "src", content: "needle" });
      return verdictOf(!l.isError && !s.isError, l, s, l2, s2);
    },
  },
  {
    name: "FIFO: view, list, search",
    run: async (p) => {
      const v = await p.call("view", { path: "pipe" });
      const l = await p.call("view", { path: ".", max_depth: 1, pattern: "pipe|null|*.img" });
      const s = await p.call("view", { path: "pipe", content: "x" });
      const e = await p.call("batch_edit", {
        path: "pipe",
        operations: [{ op: "insert", anchor: 0, content: "x" }],
      });
      return verdictOf(v.isError && s.isError && e.isError && !l.isError, v, l, s, e);
    },
  },
  {
    name: "device: /dev/zero, a char device in the tree",
    run: async (p) => {
      const v = await p.call("view", { path: "/dev/zero" });
      const s = await p.call("view", { path: "/dev/zero", content: "x" });
      const c = await p.call("text_editor", { command: "create", path: "null", file_text: "x" });
      const d = await p.call("text_editor", { command: "delete", path: "null" });
      const still = (await Deno.lstat("null").catch(() => null))?.isFile === false;
      return verdictOf(v.isError && s.isError && c.isError && d.isError && still, v, s, c, d);
    },
  },
  {
    name: "3 GB sparse file: view, tail, list, search, extract",
    run: async (p) => {
      const v = await p.call("view", { path: "sparse.img" });
      const t = await p.call("view", { path: "sparse.img", start: -5 });
      const l = await p.call("view", { path: ".", pattern: "*.img" });
      const s = await p.call("view", { path: ".", content: "needle_nowhere", pattern: "*.img" });
      const x = await p.call("extract_lines", {
        from_path: "sparse.img",
        start: 1,
        end: 2,
        to_path: "x.txt",
        position: -1,
      });
      return verdictOf(
        v.isError && t.isError && x.isError && /sparse\.img\t/.test(l.text),
        v,
        t,
        l,
        s,
        x,
      );
    },
  },
  {
    name: "200 MB single line: view, range, list, search",
    run: async (p) => {
      const v = await p.call("view", { path: "line200.txt" });
      const r = await p.call("view", { path: "line200.txt", start: 1, end: 1 });
      const l = await p.call("view", { path: ".", pattern: "line*.txt" });
      const s = await p.call("view", { path: ".", content: "NEEDLE_AT_END", pattern: "line*.txt" });
      return verdictOf(v.isError && r.isError && /line15\.txt/.test(s.text), v, r, l, s);
    },
  },
  {
    name: "15 MB single line: view, search, edit",
    run: async (p) => {
      const v = await p.call("view", { path: "line15.txt" });
      const s = await p.call("view", { path: "line15.txt", content: "NEEDLE_AT_END" });
      const id = /(\d+:[0-9a-f]{2})\|/.exec(s.text)?.[1] ?? "1:00";
      const e = await p.call("batch_edit", {
        path: "line15.txt",
        operations: [{ op: "replace", start: id, content: "short now" }],
      });
      const bytes = enc.encode(JSON.stringify([v.raw, s.raw, e.raw])).length;
      return verdictOf(!v.isError && !s.isError && !e.isError && bytes < 200_000, v, s, e) +
        ` (${bytes} B)`;
    },
  },
  {
    name: "100k entries: list, search, depth 1",
    run: async (p) => {
      const l = await p.call("view", { path: "many" });
      const s = await p.call("view", { path: "many", content: "hello" });
      const d = await p.call("view", { path: ".", max_depth: 1 });
      const bytes = enc.encode(JSON.stringify([l.raw, s.raw, d.raw])).length;
      return verdictOf(!l.isError && /1\.txt/.test(s.text) && bytes < 200_000, l, s, d) +
        ` (${bytes} B)`;
    },
  },
  {
    name: "symlink loops: view, list, search, workdir",
    run: async (p) => {
      const v = await p.call("view", { path: "loop/a" });
      const l = await p.call("view", { path: "loop" });
      const s = await p.call("view", { path: "loop/self", content: "x" });
      const w = await p.call("workdir", { action: "set", path: "loop/self/self/up/loop/self" });
      const r = await p.call("workdir", { action: "reset" });
      const e = await p.call("text_editor", { command: "create", path: "loop/a", file_text: "x" });
      return verdictOf(v.isError && !l.isError && !r.isError && e.isError, v, l, s, w, e);
    },
  },
  {
    name: "hostile names: list, view, edit, create",
    run: async (p) => {
      const l = await p.call("view", { path: "names" });
      const rows = l.text.split("\n").slice(1).map((row) => row.split("\t")[0]!).filter(Boolean);
      const out: Outcome[] = [l];
      let ok = !l.isError && rows.length === 5;
      for (const row of rows) {
        const path = `names/${row}`.replace(/^names\/"(.*)"$/, '"names/$1"');
        const v = await p.call("view", { path });
        const id = /(\d+:[0-9a-f]{2})\|one/.exec(v.text)?.[1];
        const e = await p.call("batch_edit", {
          path,
          operations: [{ op: "replace", start: id ?? "1:00", content: "ONE" }],
        });
        if (v.isError || e.isError) out.push(v, e);
        ok &&= !v.isError && !e.isError;
      }
      const c = await p.call("text_editor", {
        command: "create",
        path: "names/-n",
        file_text: "x\n",
      });
      const c2 = await p.call("text_editor", {
        command: "create",
        path: "names/a\nb",
        file_text: "x\n",
      });
      out.push(c, c2);
      return verdictOf(ok && !c.isError, ...out);
    },
  },
  {
    name: "--allow: .. escapes, symlink out, workdir, search roots",
    args: (f) => ["--allow", f.proj],
    run: async (p, f) => {
      const rs = [
        await p.call("view", { path: "../outside/secret.txt" }),
        await p.call("view", { path: "escape/secret.txt" }),
        await p.call("view", { path: "src/../../outside" }),
        await p.call("view", { path: "src|../outside", content: "secret" }),
        await p.call("workdir", { action: "set", path: ".." }),
        await p.call("extract_lines", {
          from_path: "src/f1.ts",
          start: 1,
          end: 1,
          to_path: "escape/new.txt",
          position: -1,
        }),
        await p.call("text_editor", { command: "create", path: "escape/new2.txt", file_text: "x" }),
        await p.call("text_editor", {
          command: "create",
          path: "/tmp/../" + "etc/anchorfs-probe",
          file_text: "x",
        }),
        await p.call("view", { path: "~" }),
      ];
      const leaked = rs.some((r) => !r.isError && /secret/.test(r.text));
      const wrote = (await sh(
        "/",
        `ls /etc/anchorfs-probe '${f.outside}/new.txt' '${f.outside}/new2.txt' 2>/dev/null`,
      )).out.trim();
      return verdictOf(!leaked && rs.every((r) => r.isError) && wrote === "", ...rs);
    },
  },
  {
    name: "odd arguments (NUL, huge numbers, traversal in job ids)",
    run: async (p) => {
      const calls: [string, Record<string, unknown>][] = [
        ["view", { path: "src/f1.ts\u0000x" }],
        ["view", { path: "x".repeat(100_000) }],
        ["view", { path: "src/f1.ts", start: 1e308, end: -1e308 }],
        ["view", { path: "src/f1.ts", start: "NaN" }],
        ["view", { path: "src", content: "a\nb" }],
        ["view", { path: "src", content: "x", pattern: "*".repeat(5000) }],
        ["view", { path: "src", content: "x", context: 1e9 }],
        ["view", { path: "src", max_depth: -1 }],
        ["view", { path: "" }],
        ["view", { path: "anchorfs://jobs/../../../etc/passwd" }],
        ["view", { path: "anchorfs://jobs/..%2F..%2Fetc" }],
        ["jobs", { action: "read", id: "../../../../etc" }],
        ["jobs", { action: "read", id: "1-1/../../x" }],
        ["jobs", { action: "kill", id: "1" }],
        ["jobs", { action: "read", id: "9999-1", bytes: 1e12 }],
        ["jobs", { action: "wait", id: "9999-1", timeout_seconds: 1e9 }],
        ["shell", { command: "echo a\u0000b" }],
        ["shell", { command: "" }],
        ["shell", { command: "echo ok", cwd: "src/f1.ts" }],
        ["shell", { command: "echo ok", cwd: "pipe" }],
        ["shell", { command: "true " + "x".repeat(2_000_000) }],
        ["workdir", { action: "set", path: "src/f1.ts" }],
        ["workdir", { action: "set", path: "pipe" }],
        ["text_editor", { command: "str_replace", path: "src/f1.ts", old_text: "", new_text: "x" }],
        ["text_editor", { command: "create", path: "src/", file_text: "x" }],
        ["text_editor", { command: "create", path: "src/f1.ts/x", file_text: "x" }],
        ["batch_edit", { path: "src/f2.ts", operations: [] }],
        ["batch_edit", {
          path: "src/f3.ts",
          operations: Array.from(
            { length: 20000 },
            () => ({ op: "insert", anchor: 0, content: "y" }),
          ),
        }],
        ["extract_lines", {
          from_path: "src/f4.ts",
          start: 1,
          end: 1,
          to_path: "src/f4.ts",
          position: 0,
        }],
      ];
      const bad: Outcome[] = [];
      let threw = 0;
      for (const [tool, args] of calls) {
        try {
          const r = await p.call(tool, args, { timeout: 60_000 });
          if (!r.isError && !/^(`|Created|Edited|Extracted)/.test(r.text)) bad.push(r);
        } catch (e) {
          threw++;
          findings.push(
            `odd args ${tool} ${JSON.stringify(args).slice(0, 80)} threw ${short(String(e), 200)}`,
          );
        }
      }
      const etc = await Deno.stat("/etc/passwd").then(() => true, () => false);
      return verdictOf(threw === 0 && etc, ...bad.slice(0, 3)) +
        ` (${calls.length} calls, ${threw} threw, ${bad.length} accepted)`;
    },
  },
  {
    name: "50 concurrent calls (view, search, edit, shell)",
    run: async (p) => {
      await Deno.writeTextFile("conc.txt", "");
      const jobs: Promise<Outcome>[] = [];
      for (let i = 0; i < 50; i++) {
        const kind = i % 5;
        if (kind === 0) jobs.push(p.call("view", { path: `src/f${i + 1}.ts` }));
        else if (kind === 1) jobs.push(p.call("view", { path: "src", content: "needle" }));
        else if (kind === 2) jobs.push(p.call("view", { path: "many", max_depth: 1 }));
        else if (kind === 3) {
          jobs.push(
            p.call("batch_edit", {
              path: "conc.txt",
              operations: [{ op: "insert", anchor: -1, content: `line ${i}` }],
            }),
          );
        } else jobs.push(p.call("shell", { command: `echo shell-${i}` }));
      }
      const all = await Promise.all(jobs);
      const lines = (await Deno.readTextFile("conc.txt")).trim().split("\n").length;
      const errs = all.filter((r) => r.isError);
      const slow = Math.max(...all.map((r) => r.ms));
      return verdictOf(errs.length === 0 && lines === 10, ...errs.slice(0, 2)) +
        ` (10 edits → ${lines} lines; ${errs.length} errors; slowest ${slow.toFixed(0)} ms)`;
    },
  },
  {
    name: "5 MiB message, then a 3 MiB one",
    run: async (p) => {
      let big: Outcome | string;
      try {
        big = await p.call("text_editor", {
          command: "create",
          path: "huge.txt",
          file_text: "z".repeat(5 * 1024 * 1024),
        }, { timeout: 30_000 });
      } catch (e) {
        big = `threw ${short((e as Error).message)}`;
      }
      const alive = await p.alive();
      const ok3 = await p.call("text_editor", {
        command: "create",
        path: "three.txt",
        file_text: "y".repeat(3 * 1024 * 1024),
      }, { timeout: 30_000 });
      const text = typeof big === "string" ? big : `${big.isError ? "E" : "R"}: ${short(big.text)}`;
      return `${
        alive && !ok3.isError ? "ok" : "FAIL"
      } — 5 MiB: ${text}; alive ${alive}; 3 MiB create ${ok3.isError ? short(ok3.text) : "ok"}`;
    },
  },
  {
    name: "cancel mid-search (/usr, regex)",
    run: async (p) => {
      const ac = new AbortController();
      const t0 = performance.now();
      const search = p.call("view", {
        path: "/usr",
        content: "(?i)zz[a-z]+qq\\d",
        regex: true,
        include_hidden: true,
      }, { signal: ac.signal, timeout: 120_000 })
        .then(
          (r) => `answered ${short(r.text, 60)}`,
          (e) => `rejected ${short((e as Error).message, 40)}`,
        );
      setTimeout(() => ac.abort(), 400);
      const first = await search;
      const aliveT0 = performance.now();
      const alive = await p.alive();
      const after = performance.now() - aliveT0;
      return `${alive && after < 5000 ? "ok" : "FAIL"} — ${first} after ${
        (aliveT0 - t0).toFixed(0)
      } ms; next call ${after.toFixed(0)} ms`;
    },
  },
  {
    name: "shell: `sleep 100 &`, `setsid sleep &` children",
    run: async (p) => {
      const r1 = await p.call("shell", { command: "sleep 101.25 & echo started" });
      const r2 = await p.call("shell", { command: "setsid sleep 102.25 & echo started2" });
      const r3 = await p.call("shell", {
        command: "nohup sleep 103.25 >/dev/null 2>&1 & disown; echo started3",
      });
      await new Promise((r) => setTimeout(r, 1000));
      const left = (await sh("/", "pgrep -af 'sleep 10[123].25' | grep -v pgrep || true")).out
        .trim();
      return verdictOf(left === "", r1, r2, r3) + (left ? ` LEFT: ${short(left)}` : "");
    },
  },
  {
    name: "shell: print 1 GB (lines, then one line)",
    run: async (p) => {
      const a = await p.call("shell", { command: "yes probe-line | head -c 1000000000" }, {
        timeout: 300_000,
      });
      const id = /job ([\w-]+)/.exec(a.text)?.[1];
      const w = id && /still running/.test(a.text)
        ? await p.call("jobs", { action: "wait", id }, { timeout: 300_000 })
        : a;
      const b = await p.call("shell", { command: "head -c 300000000 /dev/zero | tr '\\0' q" }, {
        timeout: 300_000,
      });
      const id2 = /job ([\w-]+)/.exec(b.text)?.[1];
      const w2 = id2 && /still running/.test(b.text)
        ? await p.call("jobs", { action: "wait", id: id2 }, { timeout: 300_000 })
        : b;
      const bytes = enc.encode(JSON.stringify([w.raw, w2.raw])).length;
      return verdictOf(bytes < 40_000, a, w, b, w2) + ` (${bytes} B)`;
    },
  },
  {
    name: "shell: command closes stdout/stderr",
    run: async (p) => {
      const r = await p.call("shell", {
        command:
          "echo before; exec >&- 2>&-; for i in 1 2 3 4 5; do sleep 0.2; done; echo after; exit 3",
      });
      return verdictOf(r.isError && /exit 3/.test(r.text), r);
    },
  },
  {
    name: "progress flood (fast output for 12 s)",
    run: async (p) => {
      let n = 0;
      let longest = 0;
      const r = await p.call("shell", {
        command: "end=$((SECONDS+12)); while [ $SECONDS -lt $end ]; do seq 1 2000; done",
      }, {
        // deno-lint-ignore no-explicit-any
        onprogress: (e: any) => {
          n++;
          longest = Math.max(longest, String(e.message ?? "").length);
        },
        timeout: 120_000,
        resetTimeoutOnProgress: true,
      });
      const id = /job ([\w-]+)/.exec(r.text)?.[1];
      let w = r;
      while (id && /still running/.test(w.text)) {
        w = await p.call("jobs", { action: "wait", id }, {
          onprogress: () => n++,
          timeout: 120_000,
        });
      }
      return verdictOf(n < 20 && longest <= 200, r, w) +
        ` (${n} progress, longest ${longest} chars)`;
    },
  },
  {
    name: "17 long jobs at once (limit 16), random bytes, a 1 GB log read as a file",
    run: async (p) => {
      const starts = await Promise.all(
        Array.from(
          { length: 17 },
          (_, i) =>
            p.call("shell", { command: `for i in $(seq 40); do sleep 0.25; done; echo j${i}` }),
        ),
      );
      const refused = starts.filter((r) => r.isError && /TOO_MANY_JOBS|limit is 16/.test(r.text));
      const list = await p.call("jobs", { action: "list" });
      const ids = [...list.text.matchAll(/^(\d+-\d+)\s+running/gm)].map((m) => m[1]!);
      await Promise.all(ids.map((id) => p.call("jobs", { action: "kill", id })));
      const rnd = await p.call("shell", { command: "head -c 20000000 /dev/urandom" });
      const big = await p.call(
        "shell",
        { command: "yes log-line | head -c 1000000000; echo END" },
        {
          timeout: 300_000,
        },
      );
      const id = /job ([\w-]+)/.exec(big.text)?.[1] ?? "?";
      const uri = `anchorfs://jobs/${id}`;
      const tail = await p.call("view", { path: uri, start: -3 });
      const find = await p.call("view", { path: uri, content: "END" });
      const bytes = enc.encode(JSON.stringify([rnd.raw, tail.raw, find.raw])).length;
      return verdictOf(refused.length === 1 && bytes < 60_000, ...refused, rnd, tail, find) +
        ` (${refused.length} refused of 17; ${bytes} B)`;
    },
  },
  {
    name:
      "/proc: view /proc/self/pagemap, /proc/kmsg (root), search /proc (depth 1), then any call",
    run: async (p) => {
      const out: string[] = [];
      for (
        const [tool, args] of [
          ["view", { path: "/proc/self/pagemap" }],
          ["view", { path: "/proc/kmsg" }],
          ["view", { path: "/proc", content: "zzqqxx", max_depth: 1 }],
          ["workdir", {}],
        ] as [string, Record<string, unknown>][]
      ) {
        const t0 = performance.now();
        const r = await p.call(tool, args, { timeout: 15_000 }).then(
          (r) => `${r.isError ? "E" : "R"} ${short(r.text, 60)}`,
          (e) =>
            `no answer in ${((performance.now() - t0) / 1000).toFixed(0)} s (${
              short(String(e), 40)
            })`,
        );
        out.push(`${tool} ${JSON.stringify(args)}: ${r}`);
      }
      const killed = p.killedForMemory ? ` KILLED at ${RSS_CAP_MB} MB RSS;` : "";
      return `${out.some((o) => o.includes("no answer")) || killed ? "FAIL" : "ok"} —${killed} ${
        out.join(" / ")
      }`;
    },
  },
];

async function killMidJob(f: Fixture, main?: string): Promise<string> {
  const runs = `${f.proj}/kill_runs.txt`;
  await Deno.writeTextFile(runs, "");
  const args = ["--path", f.proj, "--state-dir", f.state, "--foreground-window", "1"];
  const p = await Probe.start("kill9", args, main);
  const r = await p.call("shell", {
    command: "echo run >> kill_runs.txt; for i in $(seq 60); do sleep 0.5; done; echo finished",
  });
  const id = /job ([\w-]+)/.exec(r.text)?.[1] ?? "?";
  Deno.kill(p.pid, "SIGKILL");
  await p.close().catch(() => {});
  const q = await Probe.start("restart", args, main);
  q.meter();
  try {
    const l = await q.call("jobs", { action: "list" });
    const rd = await q.call("jobs", { action: "read", id });
    await new Promise((r) => setTimeout(r, 1500));
    const n = (await Deno.readTextFile(runs)).trim().split("\n").length;
    const left = (await sh("/", "pgrep -af 'seq 60' | grep -v pgrep || true")).out.trim();
    return verdictOf(/lost/i.test(rd.text) && n === 1 && left === "", l, rd) +
      ` (ran ${n}×; left: ${left || "none"})`;
  } finally {
    await q.close();
  }
}

async function attackerCases(only?: string, main?: string): Promise<void> {
  const f = await buildFixture();
  const rows: string[] = [];
  const cwd = Deno.cwd();
  Deno.chdir(f.proj);
  try {
    for (const c of ATTACKS) {
      if (only && !c.name.includes(only)) continue;
      const args = ["--path", f.proj, "--state-dir", f.state, ...(c.args?.(f) ?? [])];
      const p = await Probe.start(c.name, args, main);
      p.meter();
      let verdict: string;
      try {
        verdict = await c.run(p, f);
      } catch (e) {
        verdict = `FAIL threw ${short((e as Error).message, 200)}`;
      }
      const alive = await p.alive();
      if (!alive) {
        try {
          Deno.kill(p.pid, "SIGKILL"); // a server stuck in a blocking read cannot close itself
        } catch { /* already gone */ }
      }
      rows.push(
        `| ${c.name} | ${verdict.replaceAll("|", "\\|")} | ${p.peakMb()} | ${
          alive ? "yes" : "NO"
        } |`,
      );
      await p.close();
    }
    if (!only || "kill -9".includes(only)) {
      rows.push(
        `| kill -9 mid-job, restart | ${(await killMidJob(f, main)).replaceAll("|", "\\|")} | | |`,
      );
    }
    console.log(
      [
        "## Attacker cases",
        "",
        "| case | result | peak RSS MB | answers after |",
        "| --- | --- | ---: | --- |",
        ...rows,
        "",
      ]
        .join("\n"),
    );
  } finally {
    Deno.chdir(cwd);
    await Deno.remove(f.root, { recursive: true }).catch(() => {});
    await Deno.remove(f.state, { recursive: true }).catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      only: { type: "string" },
      case: { type: "string" },
      main: { type: "string" },
      verbose: { type: "boolean" },
    },
  });
  if (!values.only || values.only === "agent") await agentSession(values.main);
  if (!values.only || values.only === "attack") await attackerCases(values.case, values.main);
  console.log(
    findings.length
      ? ["## Texts to review", "", ...findings.map((f) => `- ${f}`)].join("\n")
      : "All error texts name a next call; no empty results.",
  );
}

if (import.meta.main) await main();
