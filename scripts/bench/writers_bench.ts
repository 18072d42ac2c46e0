// Stress of concurrent writers: N `anchorfs mcp` processes × M same-size edits (str_replace and
// batch_edit alternating) on distinct lines of one file, R rounds, in several scenarios: one
// environment; mixed environments (HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME, TMPDIR differing or
// unset) with `anchorfs edit` runs beside the servers; and an outside writer (sed -i, an editor's
// rename-save, appends, truncating rewrites) racing the edits, also on a hard-linked file. Reports
// per scenario and checkout: "Edited" answers, false ones (the edit is not in the file), outside
// writes and the ones lost. `--base` runs another checkout's main.ts too, in the same run. Each
// scenario runs against plain servers and confined ones (`--allow DIR`, every path opened
// beneath it: the `confined` column of --servers).
//
// Run: deno run -A scripts/bench/writers_bench.ts [--processes 4] [--edits 8] [--rounds 10] [--cli 2]
//        [--writes 400] [--slow-ms 0] [--base PATH/main.ts] [--scenarios same-env,mixed-env,...]
//        [--servers plain,confined]

import { parseArgs } from "node:util";
import {
  mixedEnvs,
  type OutsideKind,
  runWriters,
  type WritersOptions,
  type WritersReport,
} from "../../tests/faults/_writers.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

const SCENARIOS = [
  "same-env",
  "mixed-env",
  "sed",
  "rename-save",
  "append",
  "overwrite",
  "links-append",
] as const;
type Scenario = typeof SCENARIOS[number];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    processes: { type: "string", default: "4" },
    edits: { type: "string", default: "8" },
    rounds: { type: "string", default: "10" },
    lines: { type: "string", default: "64" },
    cli: { type: "string", default: "2" },
    writes: { type: "string", default: "400" },
    "slow-ms": { type: "string", default: "0" },
    base: { type: "string" },
    scenarios: { type: "string", default: SCENARIOS.join(",") },
    servers: { type: "string", default: "plain,confined" },
  },
});

const processes = Number(values.processes);
const edits = Number(values.edits);
const slowMs = Number(values["slow-ms"]);
const wanted = values.scenarios.split(",") as Scenario[];
for (const s of wanted) {
  if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}: ${SCENARIOS.join(", ")}`);
}
const servers = values.servers.split(",");
for (const s of servers) {
  if (s !== "plain" && s !== "confined") throw new Error(`unknown --servers ${s}: plain, confined`);
}

/** The runWriters options of a scenario (outside writers run with the mixed environments too). */
function optionsOf(scenario: Scenario, dir: string, envs: WritersOptions["envs"]): WritersOptions {
  const cli = Number(values.cli);
  const base: WritersOptions = {
    dir,
    processes,
    edits,
    rounds: Number(values.rounds),
    lines: Math.max(Number(values.lines), processes * edits + cli),
    // rename(2) is an unconfined write's last step, renameat(2) a confined one's.
    ...(slowMs > 0 ? { slow: { syscalls: ["rename", "renameat"], ms: slowMs } } : {}),
  };
  if (scenario === "same-env") return base;
  const mixed = { ...base, envs };
  if (scenario === "mixed-env") return { ...mixed, cli };
  const outside = { writes: Number(values.writes) };
  if (scenario === "links-append") {
    return { ...mixed, links: ["second-name.txt"], outside: { ...outside, kind: "append" } };
  }
  return { ...mixed, outside: { ...outside, kind: scenario as OutsideKind } };
}

const checkouts: [string, string | undefined][] = [
  ...(values.base ? [[values.base, values.base] as [string, string]] : []),
  ["this checkout", undefined],
];

print(
  `Deno ${Deno.version.deno}, ${Deno.build.os}; load ${
    Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
  }; ${processes} servers × ${edits} edits × ${values.rounds} rounds` +
    (slowMs > 0 ? `; rename(2) and renameat(2) held ${slowMs} ms` : ""),
);
print("");
print(
  '| scenario | checkout | servers | edits sent | "Edited" | false "Edited" | FILE_CHANGED ' +
    "| other | outside writes | outside writes lost | s |",
);
print("|---|---|---|---|---|---|---|---|---|---|---|");
const scratch = await Deno.makeTempDir({ prefix: "anchorfs-writers-bench-envs-" });
try {
  const envs = await mixedEnvs(scratch);
  for (const scenario of wanted) {
    for (const server of servers) {
      for (const [label, main] of checkouts) {
        const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-writers-" }));
        try {
          const t0 = performance.now();
          const options = optionsOf(scenario, dir, envs);
          const confined = server === "confined";
          const r = await runWriters({ ...options, confined, ...(main ? { main } : {}) });
          const seconds = ((performance.now() - t0) / 1000).toFixed(0);
          print(row(scenario, `${label} | ${server}`, r, seconds));
          for (const o of r.other) {
            print(`<!-- other: ${o.replaceAll("\n", " ").slice(0, 200)} -->`);
          }
        } finally {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      }
    }
  }
} finally {
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
}

function row(scenario: Scenario, label: string, r: WritersReport, seconds: string): string {
  const by = Object.entries(r.lostBy).map(([k, v]) => `${k} ${v}`).join(", ");
  const none = scenario === "same-env" || scenario === "mixed-env";
  return `| ${scenario} | ${label} | ${r.sent} | ${r.answered} | ${r.lost}${
    by ? ` (${by})` : ""
  } | ${r.changed} | ${r.otherCount} | ${none ? "–" : r.outsideWrites} | ${
    none ? "–" : r.outsideLost
  } | ${seconds} |`;
}
