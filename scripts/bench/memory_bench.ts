// Benchmark: the server's peak memory (VmHWM of the `anchorfs mcp` process, from /proc) under the
// loads of issue 9: pipelined 1 MiB `jobs read` calls, 10,000 views, and the hostile files
// (a device, a FIFO, a 3 GB sparse file in a listed directory, a file holding one 200 MB line).
// Usage: deno run -A scripts/bench/memory_bench.ts [--source] [CASE...] (default: every case).
// Linux only. Not a test: prints a Markdown table. Each case gets a fresh server: this checkout's
// bundle as it ships (_shipped.ts), or with --source its main.ts as `deno task mcp` runs it.
// Issue 26: `--trees [--sizes nm,100k,1m] [--node-modules DIR] [--scratch DIR] [--source]` instead measures
// the v1-client server on trees beside ripgrep (scripts/bench/_memory_trees.ts): idle RSS before and
// 3 s after the first call, then the peak of each scenario (VmHWM reset before it) and its time.
// `--idle [--runs N] [--main MAIN.ts]... [--node-server DIR] [--first-calls] [--cold]`: RSS 3 s after the
// first call and its file/anon split, beside @modelcontextprotocol/server-filesystem, and the
// first call of each kind (scripts/bench/_memory_idle.ts).

import { MAIN_TS, startServer, type TestServer } from "../../tests/_harness.ts";
import { describeServer, shippedBundle } from "./_shipped.ts";
import { V8_FLAGS } from "../release/compile.ts";
import { describeRegions, samplePeak } from "./_proc_memory.ts";

/** The launchers' V8 flags (the harness runs a plain `deno run`), unless DENO_V8_FLAGS says. */
const v8Flags = Deno.env.get("DENO_V8_FLAGS") ?? V8_FLAGS;

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function memory(pid: number): { rssMb: number; hwmMb: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

interface Outcome {
  note: string;
}

/** Settles within `ms` or reports a hang (the call is left to the server's own fate). */
function within<T>(ms: number, p: Promise<T>): Promise<T | "hang"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<"hang">((r) => timer = setTimeout(() => r("hang"), ms));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

const firstLine = (text: string) => text.split("\n")[0]!.slice(0, 90);

const cases: Record<string, (server: TestServer, dir: string) => Promise<Outcome>> = {
  async "60 pipelined 1 MiB jobs read"(server, dir) {
    const started = await server.call("shell", {
      command: "head -c 786432 /dev/urandom | base64 -w 100",
      cwd: dir,
    });
    const id = /job ([0-9]+-[0-9]+)/i.exec(started.text)?.[1];
    if (id) await server.call("jobs", { action: "wait", id });
    const jobId = id ?? "";
    const calls = Array.from(
      { length: 60 },
      () => server.call("jobs", { action: "read", id: jobId, bytes: 1024 * 1024 }),
    );
    const results = await Promise.all(calls);
    const chars = results.reduce((n, r) => n + r.text.length, 0);
    return { note: `${results.length} replies, ${(chars / 1e6).toFixed(0)} M characters` };
  },
  async "10,000 views"(server, dir) {
    // 500 files of 2,000 lines, each viewed in 20 ranges of 100 lines: every view adds shown lines.
    const line = (i: number) => `const value${i} = compute(${i}, "some label text ${i}");`;
    const text = Array.from({ length: 2000 }, (_, i) => line(i)).join("\n") + "\n";
    for (let f = 0; f < 500; f++) await Deno.writeTextFile(`${dir}/f${f}.ts`, text);
    let errors = 0;
    for (let batch = 0; batch < 10_000; batch += 50) {
      const calls = [];
      for (let i = batch; i < batch + 50; i++) {
        const start = (Math.floor(i / 500) % 20) * 100 + 1;
        calls.push(server.call("view", { path: `f${i % 500}.ts`, start, end: start + 99 }));
      }
      for (const r of await Promise.all(calls)) if (r.isError) errors++;
    }
    return { note: `${errors} errors` };
  },
  async "10,000 views of 300 small files, 100 in flight"(server, dir) {
    // Issue 26's load: many small files, each viewed whole, a hundred calls at a time.
    const line = (i: number) => `export const item${i} = make(${i}, "label ${i}");`;
    for (let f = 0; f < 300; f++) {
      const text = Array.from({ length: 40 + (f % 60) }, (_, i) => line(i + f)).join("\n");
      await Deno.writeTextFile(`${dir}/s${f}.ts`, `${text}\n`);
    }
    let errors = 0;
    for (let batch = 0; batch < 10_000; batch += 100) {
      const calls = [];
      for (let i = batch; i < batch + 100; i++) {
        calls.push(server.call("view", { path: `s${i % 300}.ts` }));
      }
      for (const r of await Promise.all(calls)) if (r.isError) errors++;
    }
    return { note: `${errors} errors` };
  },
  async "extract_lines from /dev/zero"(server) {
    const r = await within(
      20_000,
      server.call("extract_lines", {
        from_path: "/dev/zero",
        start: 1,
        end: 2,
        to_path: "out.txt",
        position: -1,
      }),
    );
    return { note: r === "hang" ? "no answer in 20 s" : firstLine(r.text) };
  },
  async "str_replace on one 200 MB line"(server, dir) {
    const file = await Deno.open(`${dir}/one_line.txt`, { write: true, create: true });
    const chunk = enc.encode("a".repeat(1024 * 1024));
    for (let i = 0; i < 200; i++) await file.write(chunk);
    file.close();
    const r = await within(
      60_000,
      server.call("text_editor", {
        command: "str_replace",
        path: "one_line.txt",
        old_text: "aaaa",
        new_text: "b",
      }),
    );
    return { note: r === "hang" ? "no answer in 60 s" : firstLine(r.text) };
  },
  async "str_replace on a 50 MB file of 100-byte lines (--max-file-bytes 64M)"(server, dir) {
    const line = "x".repeat(99);
    await Deno.writeTextFile(`${dir}/big.txt`, `head\n${`${line}\n`.repeat(500_000)}`);
    const r = await server.call("text_editor", {
      command: "str_replace",
      path: "big.txt",
      old_text: "head",
      new_text: "HEAD",
    });
    return { note: firstLine(r.text) };
  },
  async "view of a dir holding a 3 GB sparse file"(server, dir) {
    await Deno.mkdir(`${dir}/sparse`);
    await Deno.writeTextFile(`${dir}/sparse/small.txt`, "hello\n");
    const f = await Deno.open(`${dir}/sparse/big.img`, { write: true, create: true });
    await f.truncate(3 * 1024 ** 3);
    f.close();
    const t = performance.now();
    const r = await within(60_000, server.call("view", { path: "sparse" }));
    const ms = performance.now() - t;
    if (r === "hang") return { note: "no answer in 60 s" };
    const row = r.text.split("\n").find((l) => l.startsWith("big.img")) ?? "(no row)";
    return { note: `${ms.toFixed(0)} ms; row: ${row.replace(/\t/g, " · ")}` };
  },
  async "str_replace and delete on a FIFO"(server, dir) {
    const mk = await new Deno.Command("mkfifo", { args: [`${dir}/pipe`] }).output();
    if (!mk.success) return { note: "mkfifo failed" };
    const a = await within(
      10_000,
      server.call("text_editor", {
        command: "str_replace",
        path: "pipe",
        old_text: "a",
        new_text: "b",
      }),
    );
    const b = await within(10_000, server.call("text_editor", { command: "delete", path: "pipe" }));
    const say = (r: typeof a) => r === "hang" ? "no answer in 10 s" : firstLine(r.text);
    return { note: `str_replace: ${say(a)} / delete: ${say(b)}` };
  },
};

if (Deno.args.includes("--idle")) {
  const { idleMemory } = await import("./_memory_idle.ts");
  await idleMemory(Deno.args.filter((a) => a !== "--idle"), print);
  Deno.exit(0);
}
if (Deno.args.includes("--trees")) {
  const { treeMemory } = await import("./_memory_trees.ts");
  await treeMemory(Deno.args.filter((a) => a !== "--trees"), print);
  Deno.exit(0);
}
const fromSource = Deno.args.includes("--source");
const named = Deno.args.filter((a) => a !== "--source");
const wanted = named.length > 0 ? named : Object.keys(cases);
const main = fromSource ? MAIN_TS : await shippedBundle();
print(
  `memory_bench on ${Deno.build.os}, deno ${Deno.version.deno}, ${
    new Date().toISOString()
  }${`, V8 flags ${v8Flags}`}; server: ${describeServer(main, fromSource)}`,
);
print("");
print("| case | server VmHWM (MB) | server RSS after (MB) | outcome | at the peak (MB) |");
print("|---|---:|---:|---|---|");
for (const name of wanted) {
  const run = cases[name];
  if (!run) throw new Error(`unknown case ${JSON.stringify(name)}: ${Object.keys(cases)}`);
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-mem-bench-" }));
  const server = await startServer({
    client: "v2",
    main,
    args: [
      "--path",
      dir,
      ...(name.includes("--max-file-bytes 64M") ? ["--max-file-bytes", "64M"] : []),
    ],
    env: {
      ANCHORFS_STATE_DIR: `${dir}/.state`,
      DENO_V8_FLAGS: v8Flags,
    },
  });
  const pid = server.pid!;
  let outcome: Outcome;
  const sampler = samplePeak(pid);
  try {
    outcome = await run(server, dir);
  } catch (e) {
    outcome = { note: `failed: ${(e as Error).message.slice(0, 80)}` };
  }
  let mem = { rssMb: NaN, hwmMb: NaN };
  try {
    mem = memory(pid);
  } catch {
    outcome.note += " (server gone)";
  }
  const at = sampler.stop();
  print(
    `| ${name} | ${mem.hwmMb.toFixed(0)} | ${mem.rssMb.toFixed(0)} | ${outcome.note} | ${
      at ? describeRegions(at) : ""
    } |`,
  );
  await server.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
