// Benchmark for issue 16: content search, file-name search and recursive listing through the
// real MCP round trip, against ripgrep (the floor) and @modelcontextprotocol/server-filesystem,
// on the trees of scripts/bench/search_corpus.ts, measured in one run and interleaved call by call;
// plus time and peak RSS of the server as a generated tree grows 10k → 100k → 1M files.
// Not a test. Usage (trees from search_corpus.ts; PEERS is a scratch folder for npm installs):
//   deno run -A scripts/bench/search_speed_bench.ts [--runs 9] [--peers DIR] [--source [--v8-flags]]
//     [--project DIR] [--node-modules DIR] [--small DIR,DIR,DIR] [--write FILE]
//     [--only search,names,listing,file] [--compare CHECKOUT]
// With --write, appends the tables to FILE (docs/benchmarks.md) with machine, date and load.
// --only keeps those kinds of rows; --compare also runs the server of another checkout (e.g. main
// exported with `git archive`) call by call in the same run, and adds its times as "before".
// The servers are each checkout's bundle as it ships (_shipped.ts builds it); --source runs their
// main.ts instead, as `deno task mcp` does (--v8-flags then adds the tasks' V8 flags).

import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { V8_FLAGS as LAUNCH_V8_FLAGS } from "../release/compile.ts";
import { launchFlags, shippedBundle } from "./_shipped.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "9" },
    peers: { type: "string", default: "/tmp/anchorfs-bench-peers" },
    project: { type: "string" },
    "node-modules": { type: "string" },
    small: { type: "string" },
    write: { type: "string" },
    "v8-flags": { type: "boolean", default: false },
    "no-peer": { type: "boolean", default: false },
    source: { type: "boolean", default: false },
    only: { type: "string" },
    compare: { type: "string" },
  },
});
const runs = Number(opts.runs);
type Kind = "search" | "names" | "listing" | "file";
const only = opts.only ? new Set(opts.only.split(",")) : null;
const wanted = (kind: Kind) => !only || only.has(kind);
const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));
const note = (text: string): void => {
  Deno.stderr.writeSync(enc.encode(`${text}\n`));
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const PEER = "@modelcontextprotocol/server-filesystem@2026.8.31";
// rg reads .gitignore without a git repository only with --no-require-git; .ignore/.rgignore
// files are not gitignore rules, so they are turned off to match anchorfs.
const RG_FLAGS = ["--no-require-git", "--no-ignore-dot", "--no-config"];
// The launchers' V8 flags (scripts/release/compile.ts), as the benches measure the server.
const V8_FLAGS = `--v8-flags=${LAUNCH_V8_FLAGS}`;

interface Server {
  client: Client;
  pid: number;
  call(name: string, args: Record<string, unknown>): Promise<{ ms: number; text: string }>;
  close(): Promise<void>;
}

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["HOME", "PATH", "DENO_DIR"]) if (Deno.env.get(k)) out[k] = Deno.env.get(k)!;
  return out;
}

async function connect(command: string, args: string[]): Promise<Server> {
  const transport = new StdioClientTransport({ command, args, env: env(), stderr: "ignore" });
  const client = new Client({ name: "search-speed-bench", version: "1" }, { capabilities: {} });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid!,
    async call(name, args) {
      const t = performance.now();
      const r = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
      const ms = performance.now() - t;
      // deno-lint-ignore no-explicit-any
      const text = ((r.content as any[])[0]?.text as string | undefined) ?? "";
      if (r.isError) note(`${name} ${JSON.stringify(args)} → error: ${text.slice(0, 200)}`);
      return { ms, text };
    },
    close: () => client.close(),
  };
}

/**
 * The server of `checkout`: its bundle as it ships, run as the npm launcher runs it
 * (_shipped.ts), or with --source its main.ts (with --v8-flags, the tasks' V8 flags).
 */
async function anchorfs(dir: string, checkout = root): Promise<Server> {
  const main = opts.source ? `${checkout}/main.ts` : await shippedBundle(checkout);
  const flags = opts.source
    ? [`--config=${checkout}/deno.json`, ...(opts["v8-flags"] ? [V8_FLAGS] : [])]
    : launchFlags(main);
  return connect(Deno.execPath(), [
    "run",
    "-A",
    "--quiet",
    ...flags,
    main,
    "mcp",
    "--path",
    dir,
    // A 1M-file search may take longer than the default 50 s deadline; rg has none.
    "--deadline",
    "900",
  ]);
}

async function peer(dirs: string[]): Promise<Server | null> {
  if (opts["no-peer"]) return null;
  const main = `${opts.peers}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
  if (!await Deno.stat(main).then(() => true, () => false)) {
    await Deno.mkdir(opts.peers!, { recursive: true });
    note(`npm install ${PEER} into ${opts.peers} ...`);
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", PEER],
      cwd: opts.peers,
      stdout: "null",
    }).output();
    if (!out.success) return null;
  }
  return await connect("node", [main, ...dirs]);
}

/** Peak and current RSS of a process, MB (Linux /proc). */
function memory(pid: number): { hwm: number; rss: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { hwm: kb("VmHWM") / 1024, rss: kb("VmRSS") / 1024 };
}

async function timeCmd(cmd: string, args: string[], cwd: string): Promise<number> {
  const t = performance.now();
  await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "null" }).output();
  return performance.now() - t;
}

/** ripgrep's peak RSS for one run, MB (GNU time). */
async function rgPeakMb(args: string[], cwd: string): Promise<number | null> {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M", "rg", ...RG_FLAGS, ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output().catch(() => null);
  const kb = Number(
    new TextDecoder().decode(out?.stderr ?? new Uint8Array()).trim().split("\n").pop(),
  );
  return Number.isFinite(kb) && kb > 0 ? kb / 1024 : null;
}

interface Scenario {
  name: string;
  kind: Kind;
  ours: [string, Record<string, unknown>];
  floor: { label: string; cmd: string; args: string[] };
  peer?: [string, Record<string, unknown>];
}

function searchScenarios(rare: string, rareRegex: string): Scenario[] {
  const rg = (label: string, args: string[]) => ({
    label,
    cmd: "rg",
    args: [...RG_FLAGS, ...args],
  });
  return [
    {
      name: "literal, no match",
      kind: "search",
      ours: ["view", { path: ".", content: "anchorfs_no_such_token_qq" }],
      floor: rg("rg -F", ["-F", "-e", "anchorfs_no_such_token_qq", "."]),
    },
    {
      name: `literal \`${rare}\``,
      kind: "search",
      ours: ["view", { path: ".", content: rare }],
      floor: rg("rg -F", ["-F", "-e", rare, "."]),
    },
    {
      name: `regex \`${rareRegex}\` (required literal)`,
      kind: "search",
      ours: ["view", { path: ".", content: rareRegex, regex: true }],
      floor: rg("rg", ["-e", rareRegex, "."]),
    },
    {
      name: "regex `(TODO|FIXME|XXX):` (alternation)",
      kind: "search",
      ours: ["view", { path: ".", content: "(TODO|FIXME|XXX):", regex: true }],
      floor: rg("rg", ["-e", "(TODO|FIXME|XXX):", "."]),
    },
    {
      name: "regex `\\d{7}[qxz]\\d{7}` (no literal, repetition)",
      kind: "search",
      ours: ["view", { path: ".", content: "\\d{7}[qxz]\\d{7}", regex: true }],
      floor: rg("rg", ["-e", "\\d{7}[qxz]\\d{7}", "."]),
    },
  ];
}

const peerFailed = new Set<string>();

/** The server of the --compare checkout (null without it), for the "before" column. */
function compared(dir: string): Promise<Server | null> {
  return opts.compare ? anchorfs(dir, opts.compare.replace(/\/$/, "")) : Promise.resolve(null);
}

/** The "before" cells: its median and its ratio to the floor of the same run. */
function beforeCells(before: number[], floor: number): string {
  if (!opts.compare) return "";
  const b = median(before);
  return ` ${b.toFixed(0)} | ${(b / floor).toFixed(2)}× |`;
}

async function measure(
  server: Server,
  other: Server | null,
  cwd: string,
  scenarios: Scenario[],
  old: Server | null,
): Promise<string[]> {
  const rows: string[] = [];
  for (const s of scenarios) {
    await server.call(...s.ours); // warm-up (page cache, workers, JIT)
    await old?.call(...s.ours);
    const ours: number[] = [];
    const floor: number[] = [];
    const theirs: number[] = [];
    const before: number[] = [];
    let summary = "";
    for (let i = 0; i < runs; i++) {
      const r = await server.call(...s.ours);
      ours.push(r.ms);
      summary = r.text.split("\n")[0]!.slice(0, 110);
      floor.push(await timeCmd(s.floor.cmd, s.floor.args, cwd));
      if (old) before.push((await old.call(...s.ours)).ms);
      if (other && s.peer && i < Math.min(runs, 3) && !peerFailed.has(s.name)) {
        // A reply over the client's 10 MiB stdio limit (directory_tree of a big tree) ends the
        // peer's connection: say so in the table instead of stopping the benchmark.
        try {
          theirs.push((await other.call(...s.peer)).ms);
        } catch (e) {
          note(`  server-filesystem ${s.peer[0]} failed: ${(e as Error).message}`);
          peerFailed.add(s.name);
        }
      }
    }
    note(`  ${s.name}: ${summary}`);
    const o = median(ours);
    const f = median(floor);
    rows.push(
      `| ${s.name.replaceAll("|", "\\|")} | ${o.toFixed(0)} | \`${s.floor.label}\` ${
        f.toFixed(0)
      } | **${(o / f).toFixed(2)}×** | ${
        s.peer
          ? (peerFailed.has(s.name)
            ? "failed (reply over the client's 10 MiB limit)"
            : theirs.length > 0
            ? `${median(theirs).toFixed(0)}`
            : "n/a")
          : "no such tool"
      } |${beforeCells(before, f)}`,
    );
  }
  return rows;
}

function loadNow(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

const sections: string[] = [];
/** Each table is printed as soon as it is measured (a long run that fails keeps what it has). */
const addSection = (text: string) => {
  sections.push(text);
  note(`\n${text}\n`);
};
const header = opts.compare
  ? "| scenario | anchorfs (ms) | floor (ms) | ratio | server-filesystem (ms) | before (ms) | before ratio |\n|---|---|---|---|---|---|---|"
  : "| scenario | anchorfs (ms) | floor (ms) | ratio | server-filesystem (ms) |\n|---|---|---|---|---|";

async function treeTable(
  label: string,
  dir: string,
  rare: string,
  rareRegex: string,
  exclude: string[],
) {
  const loadBefore = loadNow();
  note(`${label}: ${dir}`);
  const files = new TextDecoder().decode(
    (await new Deno.Command("rg", { args: [...RG_FLAGS, "--files"], cwd: dir, stdout: "piped" })
      .output()).stdout,
  ).split("\n").filter(Boolean).length;
  const server = await anchorfs(dir);
  const other = await peer([dir]);
  const old = await compared(dir);
  const scenarios: Scenario[] = [
    ...searchScenarios(rare, rareRegex),
    {
      name: "file names `**/package.json`",
      kind: "names",
      ours: ["view", { path: ".", pattern: "**/package.json" }],
      floor: {
        label: "rg --files -g",
        cmd: "rg",
        args: [...RG_FLAGS, "--files", "-g", "**/package.json"],
      },
      peer: ["search_files", { path: dir, pattern: "**/package.json", excludePatterns: exclude }],
    },
    {
      name: "recursive listing",
      kind: "listing",
      ours: ["view", { path: "." }],
      floor: { label: "rg --files", cmd: "rg", args: [...RG_FLAGS, "--files"] },
      peer: ["directory_tree", { path: dir, excludePatterns: exclude }],
    },
  ];
  const rows = await measure(server, other, dir, scenarios.filter((s) => wanted(s.kind)), old);
  const peak = memory(server.pid).hwm;
  const oldPeak = old ? memory(old.pid).hwm : 0;
  await server.close();
  await other?.close().catch(() => {});
  await old?.close();
  addSection(
    `${label}: \`${dir}\`, ${
      files.toLocaleString("en-US")
    } files after ignore rules; medians of ${runs} ` +
      `MCP round trips (server-filesystem: of 3), ms; load average before/after: ${loadBefore} / ${loadNow()}; ` +
      `server peak RSS ${peak.toFixed(0)} MB${
        old ? ` (before: ${oldPeak.toFixed(0)} MB)` : ""
      }.\n\n${header}\n${rows.join("\n")}`,
  );
}

/** The issue's read and edit rows on a generated 50,000-line file. */
async function fileTable() {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-speed-bench-" });
  const file = `${dir}/big.ts`;
  const lines = Array.from(
    { length: 50_000 },
    (_, i) => `export const value${i} = computeSomething(${i}, "label ${i}"); // line ${i + 1}`,
  );
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  const server = await anchorfs(dir);
  const other = await peer([dir]);
  const edit: number[] = [], sedI: number[] = [], read: number[] = [], sedN: number[] = [];
  const peerEdit: number[] = [], peerRead: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const shown = await server.call("view", { path: "big.ts", start: 25_000, end: 25_099 });
    const id = /^(25000:[0-9a-z]+)\|/m.exec(shown.text)?.[1];
    if (i > 0) read.push(shown.ms);
    // A new name each time: writing back what the last edit replaced is refused as a revert.
    const next = `computeOther${i}`;
    const e = await server.call("batch_edit", {
      path: "big.ts",
      operations: [{
        op: "replace",
        start: id,
        end: id,
        content: lines[24_999]!.replace("computeSomething", next),
      }],
    });
    if (i > 0) edit.push(e.ms);
    if (i > 0) sedN.push(await timeCmd("sed", ["-n", "25000,25099p", file], dir));
    if (i > 0) {
      sedI.push(await timeCmd("sed", ["-i", "25000s/value24999 /value24999 /", file], dir));
    }
    if (other && i > 0 && i <= 3) {
      try {
        peerRead.push((await other.call("read_text_file", { path: file })).ms);
        peerEdit.push(
          (await other.call("edit_file", {
            path: file,
            edits: [{ oldText: `value24999 = compute`, newText: `value24999 = compute` }],
          })).ms,
        );
      } catch (e) {
        note(`  server-filesystem failed: ${(e as Error).message}`);
      }
    }
  }
  await server.close();
  await other?.close().catch(() => {});
  await Deno.remove(dir, { recursive: true });
  const row = (name: string, o: number[], label: string, f: number[], p: number[]) =>
    `| ${name} | ${median(o).toFixed(1)} | \`${label}\` ${median(f).toFixed(1)} | ${
      (median(o) / median(f)).toFixed(2)
    }× | ${p.length > 0 ? median(p).toFixed(0) : "n/a"} |`;
  addSection(
    `A 50,000-line file (load ${loadNow()}); server-filesystem reads the whole file (no ranges).\n\n${header}\n${
      row("one-line edit (`batch_edit`)", edit, "sed -i", sedI, peerEdit)
    }\n${row("read lines 25,000-25,099", read, "sed -n", sedN, peerRead)}`,
  );
}

/** Time and peak RSS as the tree grows: a capped search, a listing, file names, searches. */
async function growthTable(dirs: string[]) {
  const rows: string[] = [];
  for (const dir of dirs) {
    const files = new TextDecoder().decode(
      (await new Deno.Command("rg", { args: [...RG_FLAGS, "--files"], cwd: dir, stdout: "piped" })
        .output()).stdout,
    ).split("\n").filter(Boolean).length;
    note(`growth: ${dir} (${files} files)`);
    const cases: [string, Kind, Record<string, unknown>, string[]][] = [
      ["search capped (`value`)", "search", { path: ".", content: "value" }, [
        "-F",
        "-e",
        "value",
        ".",
      ]],
      ["listing", "listing", { path: "." }, ["--files"]],
      // One file in 100: past 10k files the listing's 1,000 rows are reached.
      ["file names `**/file-7.ts`", "names", { path: ".", pattern: "**/file-7.ts" }, [
        "--files",
        "-g",
        "**/file-7.ts",
      ]],
      ["literal `rare_needle_token`", "search", { path: ".", content: "rare_needle_token" }, [
        "-F",
        "-e",
        "rare_needle_token",
        ".",
      ]],
      ["regex `rare_\\w+_token`", "search", {
        path: ".",
        content: "rare_\\w+_token",
        regex: true,
      }, ["-e", "rare_\\w+_token", "."]],
      ["regex `\\d{7}[qxz]\\d{7}` (no literal)", "search", {
        path: ".",
        content: "\\d{7}[qxz]\\d{7}",
        regex: true,
      }, ["-e", "\\d{7}[qxz]\\d{7}", "."]],
    ];
    const server = await anchorfs(dir);
    const old = await compared(dir);
    const startRss = memory(server.pid).hwm;
    const oldStart = old ? memory(old.pid).hwm : 0;
    const n = dir.endsWith("1000000") ? Math.min(runs, 3) : runs;
    for (const [name, kind, args, rgArgs] of cases.filter(([, kind]) => wanted(kind))) {
      const ours: number[] = [];
      const floor: number[] = [];
      const before: number[] = [];
      if (kind !== "search") {
        await server.call("view", args); // warm-up, as in the tree tables
        await old?.call("view", args);
      }
      for (let i = 0; i < n; i++) {
        ours.push((await server.call("view", args)).ms);
        floor.push(await timeCmd("rg", [...RG_FLAGS, ...rgArgs], dir));
        if (old) before.push((await old.call("view", args)).ms);
      }
      const rgMb = await rgPeakMb(rgArgs, dir);
      rows.push(
        `| ${files.toLocaleString("en-US")} | ${name} | ${median(ours).toFixed(0)} | ${
          median(floor).toFixed(0)
        } | ${(median(ours) / median(floor)).toFixed(2)}× | ${
          memory(server.pid).hwm.toFixed(0)
        } (start ${startRss.toFixed(0)}) | ${rgMb?.toFixed(0) ?? "n/a"} |${
          old
            ? `${beforeCells(before, median(floor))} ${memory(old.pid).hwm.toFixed(0)} (start ${
              oldStart.toFixed(0)
            }) |`
            : ""
        }`,
      );
    }
    await server.close();
    await old?.close();
  }
  const columns = "| files | call | anchorfs | rg | ratio | anchorfs peak RSS | rg peak RSS |" +
    (opts.compare ? " before | before ratio | before peak RSS |" : "");
  addSection(
    `Generated trees (scripts/bench/search_corpus.ts small): medians of ${runs} (3 for 1M), ms; "peak RSS" is the ` +
      `server's VmHWM after the row (it only grows), MB; load ${loadNow()}. The listing prints 1,000 rows ` +
      `and counts on up to 200,000 more files (rg --files prints every path).\n\n` +
      `${columns}\n${columns.replace(/[^|]+/g, "---")}\n` +
      rows.join("\n"),
  );
}

if (opts.project) {
  await treeTable(
    "(a) project with a .gitignored node_modules",
    opts.project,
    "XMLHttpRequest",
    "\\bfunction\\s+\\w+Error\\(",
    [
      "**/node_modules",
    ],
  );
  if (wanted("file")) await fileTable();
}
if (opts["node-modules"]) {
  await treeTable(
    "(b) installed node_modules",
    opts["node-modules"],
    "XMLHttpRequest",
    "\\bfunction\\s+\\w+Error\\(",
    [
      "**/*.map",
    ],
  );
}
if (opts.small) await growthTable(opts.small.split(","));

const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.*)/)?.[1] ?? "?";
const rgVersion = new TextDecoder().decode(
  (await new Deno.Command("rg", { args: ["--version"], stdout: "piped" }).output()).stdout,
).split("\n")[0];
const text =
  `### Search and listing vs ripgrep (issue 16, \`scripts/bench/search_speed_bench.ts\`)\n\n` +
  `Machine: ${navigator.hardwareConcurrency} CPUs (${cpu}), Deno ${Deno.version.deno}, ${rgVersion}; ` +
  `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; server: ${
    !opts.source
      ? "the shipped bundle, run as the npm launcher runs it (its V8 flags)"
      : opts["v8-flags"]
      ? "main.ts from source, with the V8 regexp flags of deno.json's tasks"
      : "main.ts from source by a plain `deno run -A` (regexes with repetition on re2js)"
  }.\n\n${sections.join("\n\n")}\n`;
print(text);
if (opts.write) await Deno.writeTextFile(opts.write, `\n${text}`, { append: true });
