// Issue 26's idle figure (run by `scripts/bench/memory_bench.ts --idle`): a fresh server on stdio,
// `initialize`, one `view` of a small file, then VmRSS 3 s later split by /proc/PID/smaps into
// file-backed pages (the executable's text, shared libraries), the malloc `[heap]` and other
// anonymous pages (V8's heap among them), 5 runs each. With `--node-server DIR`, the same for
// @modelcontextprotocol/server-filesystem under node (DIR: where it is npm-installed), the issue's
// reference. Raw JSON-RPC lines, so both servers see the same client. `--first-calls`: then the
// time of each kind of first call (file view, listing, search, str_replace; median of the runs),
// each on a fresh server 1 s after `initialize`. `--cold`: each anchorfs run on an empty Deno
// cache of its own (the first start after an install). Linux only. Not a test.

import { parseArgs } from "node:util";
import { MAIN_TS } from "../../tests/_harness.ts";
// As the launchers run it: their V8 flags, no code cache.
import { launchFlags, shippedBundle } from "./_shipped.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Split {
  rss: number;
  file: number;
  mallocHeap: number;
  otherAnon: number;
}

/** VmRSS (MB) and its split by mapping kind, from /proc/PID/smaps. */
function split(pid: number): Split {
  const text = Deno.readTextFileSync(`/proc/${pid}/smaps`);
  const kb = { file: 0, heap: 0, anon: 0 };
  let kind: keyof typeof kb = "anon";
  for (const line of text.split("\n")) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const name = m[1] ?? "";
      kind = name === "[heap]" ? "heap" : name.startsWith("/") ? "file" : "anon";
    } else if (line.startsWith("Rss:")) kb[kind] += Number(line.split(/\s+/)[1]);
  }
  const mb = (n: number) => n / 1024;
  return {
    rss: mb(kb.file + kb.heap + kb.anon),
    file: mb(kb.file),
    mallocHeap: mb(kb.heap),
    otherAnon: mb(kb.anon),
  };
}

/** Newline-delimited JSON-RPC over a child's stdin/stdout: send a request, await its reply. */
export class LineClient {
  #next = 1;
  #waiting = new Map<number, (reply: unknown) => void>();
  #writer: WritableStreamDefaultWriter<Uint8Array>;

  constructor(readonly child: Deno.ChildProcess) {
    this.#writer = child.stdin.getWriter();
    this.#read();
  }

  async #read() {
    let buffered = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const msg = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        this.#waiting.get(msg.id)?.(msg);
        this.#waiting.delete(msg.id);
      }
    }
  }

  send(method: string, params: unknown): Promise<unknown> {
    const id = this.#next++;
    const reply = new Promise<unknown>((resolve) => this.#waiting.set(id, resolve));
    this.#write({ jsonrpc: "2.0", id, method, params });
    return reply;
  }

  notify(method: string) {
    this.#write({ jsonrpc: "2.0", method });
  }

  #write(msg: unknown) {
    this.#writer.write(new TextEncoder().encode(`${JSON.stringify(msg)}\n`));
  }

  async close() {
    await this.#writer.close().catch(() => {});
    await this.child.status;
  }
}

interface Run {
  before: Split;
  idle: Split;
  firstCallMs: number;
  initializeMs: number;
}

/** One fresh server: `initialize`, 1 s, one `tool` call, 3 s; RSS before the call and after. */
async function measureOnce(
  command: string,
  args: string[],
  tool: string,
  toolArgs: Record<string, unknown>,
  settleMs = 3000,
  env: Record<string, string> = {},
): Promise<Run> {
  const child = new Deno.Command(command, {
    args,
    // As the npm launcher and the tasks run it: no update check (a DNS lookup, and its client).
    env: { DENO_NO_UPDATE_CHECK: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const client = new LineClient(child);
  const t0 = performance.now();
  await client.send("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "idle-bench", version: "1" },
  });
  const initializeMs = performance.now() - t0;
  client.notify("notifications/initialized");
  await sleep(1000);
  const before = split(child.pid);
  const t1 = performance.now();
  await client.send("tools/call", { name: tool, arguments: toolArgs });
  const firstCallMs = performance.now() - t1;
  await sleep(settleMs);
  const idle = split(child.pid);
  await client.close();
  return { before, idle, firstCallMs, initializeMs };
}

const range = (xs: number[]) => {
  const lo = Math.min(...xs), hi = Math.max(...xs);
  return lo.toFixed(0) === hi.toFixed(0) ? lo.toFixed(0) : `${lo.toFixed(0)}–${hi.toFixed(0)}`;
};

function row(label: string, runs: Run[]): string {
  const of = (pick: (r: Run) => number) => range(runs.map(pick));
  return `| ${label} | ${of((r) => r.before.rss)} | ${of((r) => r.idle.rss)} | ${
    of((r) => r.idle.file)
  } | ${of((r) => r.idle.mallocHeap)} | ${of((r) => r.idle.otherAnon)} | ${
    of((r) => r.initializeMs)
  } | ${of((r) => r.firstCallMs)} |`;
}

/** The first call of each kind, each on a fresh server: what loading on first use costs it. */
const FIRST_CALLS: [string, string, Record<string, unknown>][] = [
  ["view of a file", "view", { path: "small.ts" }],
  ["listing", "view", { path: "." }],
  ["search", "view", { path: ".", content: "answer" }],
  ["str_replace", "text_editor", {
    command: "str_replace",
    path: "edit.ts",
    old_text: "export const answer = 42;",
    new_text: "export const answer = 43;",
  }],
];

/** Median time (ms) of each first call, `runs` fresh servers per kind. */
async function firstCallRows(main: string, dir: string, runs: number): Promise<string> {
  const cells: string[] = [];
  for (const [, tool, args] of FIRST_CALLS) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      await Deno.writeTextFile(`${dir}/edit.ts`, "export const answer = 42;\n");
      const run = await measureOnce(
        Deno.execPath(),
        ["run", ...launchFlags(main), main, "mcp", "--path", dir],
        tool,
        args,
        0,
      );
      times.push(run.firstCallMs);
    }
    times.sort((x, y) => x - y);
    cells.push(times[Math.floor(times.length / 2)]!.toFixed(0));
  }
  return `| anchorfs (${main}) | ${cells.join(" | ")} |`;
}

/** Deno's cache folder (DENO_DIR, or where Deno keeps it by default). */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/**
 * A new, empty Deno cache but for the npm packages (linked from `from`, so a source checkout
 * resolves them offline): the first start after an install, or a cache the server cannot write.
 */
async function coldDenoDir(from: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-cold-deno-" });
  await Deno.symlink(`${from}/npm`, `${dir}/npm`).catch(() => {});
  return dir;
}

/**
 * Prints the idle table: anchorfs (`--main`, default this checkout both as it ships, its bundle,
 * and from source) and optionally node's.
 */
export async function idleMemory(args: string[], print: (text: string) => void): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: "string", default: "5" },
      main: { type: "string", multiple: true },
      "node-server": { type: "string" },
      "first-calls": { type: "boolean" },
      cold: { type: "boolean" },
    },
  });
  // --cold: every run on a cache of its own, empty (Deno parses every module at start).
  const realDenoDir = values.cold ? await denoDir() : "";
  const runs = Number(values.runs);
  const mains = values.main ?? [await shippedBundle(), MAIN_TS];
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-idle-" });
  await Deno.writeTextFile(`${dir}/small.ts`, "export const answer = 42;\n".repeat(40));
  print(
    "| server | RSS before the first call (MB) | RSS 3 s after (MB) | file-backed | malloc [heap] | other anon (V8 heap, stacks) | initialize (ms) | first call (ms) |",
  );
  print("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const main of mains) {
    const measured: Run[] = [];
    for (let i = 0; i < runs; i++) {
      const cache = values.cold ? await coldDenoDir(realDenoDir) : undefined;
      measured.push(
        await measureOnce(
          Deno.execPath(),
          ["run", ...launchFlags(main), main, "mcp", "--path", dir],
          "view",
          { path: "small.ts" },
          3000,
          cache ? { DENO_DIR: cache } : {},
        ),
      );
      if (cache) await Deno.remove(cache, { recursive: true });
    }
    print(row(`anchorfs (${main}${values.cold ? ", cold cache" : ""})`, measured));
  }
  if (values["node-server"]) {
    const entry = `${
      values["node-server"]
    }/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
    const measured: Run[] = [];
    for (let i = 0; i < runs; i++) {
      measured.push(
        await measureOnce("node", [entry, dir], "read_text_file", { path: `${dir}/small.ts` }),
      );
    }
    print(row("server-filesystem (node)", measured));
  }
  if (values["first-calls"]) {
    print("");
    print(`| server | ${FIRST_CALLS.map(([label]) => `first ${label} (ms)`).join(" | ")} |`);
    print(`|---|${FIRST_CALLS.map(() => "---:").join("|")}|`);
    for (const main of mains) print(await firstCallRows(main, dir, runs));
  }
  await Deno.remove(dir, { recursive: true });
}
