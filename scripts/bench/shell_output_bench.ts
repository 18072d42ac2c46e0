// Bytes a shell result puts on the wire for realistic command outputs (passing and failing test
// runs, a colour-and-progress install, a compiler failure), and whether the first result shows
// why a failing one failed. Compares this checkout's server with another checkout's (the
// "before"), both through the real MCP server and SDK client.
// Run: deno run -A scripts/bench/shell_output_bench.ts [--before /path/to/other/checkout] [--show]

import { parseArgs } from "node:util";
import { startServer } from "../../tests/_harness.ts";

const { values } = parseArgs({
  options: { before: { type: "string" }, show: { type: "boolean" } },
});

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

interface Scenario {
  name: string;
  script: string;
  /** Texts the first result must contain to show why it failed (none for a success). */
  why: string[];
}

const SCENARIOS: Scenario[] = [
  {
    name: "passing TAP run, 1,000 tests (~60 KB)",
    script: `echo 'TAP version 13'
for i in $(seq 1 1000); do echo "ok $i - the suite keeps passing, case number $i of it"; done
echo '1..1000'; echo '# tests 1000'; echo '# pass 1000'; echo '# fail 0'`,
    why: [],
  },
  {
    name: "failing TAP run, 2 failures early in ~60 KB",
    script: `echo 'TAP version 13'
for i in 1 2 3; do echo "ok $i - parses case $i"; done
echo 'not ok 4 - parses ISO dates'; echo '  ---'
echo "  error: 'Expected 2024-01-01, got 2023-12-31'"; echo '  ...'
for i in $(seq 5 40); do echo "ok $i - formats case $i"; done
echo 'not ok 41 - rounds money'
echo '  AssertionError [ERR_ASSERTION]: 0.30000000000000004 == 0.3'
for i in $(seq 42 1000); do echo "ok $i - the suite keeps passing, case number $i of it"; done
echo '1..1000'; echo '# tests 1000'; echo '# pass 998'; echo '# fail 2'; exit 1`,
    why: ["not ok 4 - parses ISO dates", "not ok 41 - rounds money", "# fail 2"],
  },
  {
    name: "jest-style coloured run, 1 failing file of 300 (~45 KB)",
    script: `printf '\\033[1m\\033[31m FAIL \\033[39m\\033[22m src/money.test.js\\n'
printf '  \\033[31m●\\033[39m rounds to cents\\n\\n    expect(received).toBe(expected)\\n\\n'
printf '    Expected: \\033[32m0.3\\033[39m\\n    Received: \\033[31m0.30000000000000004\\033[39m\\n'
for i in $(seq 1 300); do printf '\\033[1m\\033[42m PASS \\033[49m\\033[22m src/module%d.test.js (%d ms)\\n' $i $i
  printf '  \\033[32m✓\\033[39m handles case %d\\n' $i; done
printf 'Tests:       \\033[1m\\033[31m1 failed\\033[39m\\033[22m, \\033[1m\\033[32m600 passed\\033[39m\\033[22m, 601 total\\n'
exit 1`,
    why: ["FAIL", "rounds to cents", "Received: 0.30000000000000004", "1 failed"],
  },
  {
    name: "install with \\r progress bars and repeated lines (~120 KB), exit 0",
    script: `for p in $(seq 1 40); do for i in $(seq 0 5 100); do
  printf '\\r\\033[2Kfetch package-%d [%-20s] %3d%%' $p "$(printf '#%.0s' $(seq 0 5 $i))" $i; done
  printf '\\n'; done
for i in $(seq 1 200); do echo 'npm WARN deprecated inflight@1.0.6: use lru-cache'; done
echo 'added 412 packages in 9s'`,
    why: [],
  },
  {
    name: "TypeScript build, 3 errors early then 1,500 lines of emit log, exit 2",
    script: `echo "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
echo "src/b.ts(10,1): error TS2304: Cannot find name 'foo'."
echo "src/c.ts:4:9 - error TS2554: Expected 2 arguments, but got 1."
for i in $(seq 1 1500); do echo "TSFILE: /srv/app/dist/module$i.js"; done
echo 'Found 3 errors in 3 files.'; exit 2`,
    why: ["TS2322", "TS2304", "TS2554", "Found 3 errors"],
  },
];

async function measure(main: string | undefined, label: string) {
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-out-bench-" });
  const state = await Deno.makeTempDir({ prefix: "anchorfs-out-state-" });
  const server = await startServer({
    client: "v1",
    ...(main && { main }),
    args: ["--path", dir, "--state-dir", state, "--foreground-window", "30"],
  });
  const rows: { name: string; bytes: number; why: string; isError: boolean }[] = [];
  try {
    for (const s of SCENARIOS) {
      const r = await server.call("shell", { command: s.script });
      const bytes = new TextEncoder().encode(JSON.stringify(r.raw)).length;
      if (values.show) print(`--- ${label}: ${s.name}\n${r.text}\n`);
      const found = s.why.filter((w) => r.text.includes(w)).length;
      rows.push({
        name: s.name,
        bytes,
        why: s.why.length === 0 ? "-" : `${found}/${s.why.length}`,
        isError: r.isError,
      });
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(state, { recursive: true });
  }
  return { label, rows };
}

const runs = [await measure(undefined, "this checkout")];
if (values.before) runs.unshift(await measure(`${values.before}/main.ts`, "before"));
print(`| scenario | ${runs.map((r) => `${r.label}: bytes · why shown · isError`).join(" | ")} |`);
print(`|---|${runs.map(() => "---").join("|")}|`);
for (let i = 0; i < SCENARIOS.length; i++) {
  const cells = runs.map((r) => {
    const row = r.rows[i]!;
    return `${row.bytes.toLocaleString("en-US")} · ${row.why} · ${row.isError}`;
  });
  print(`| ${SCENARIOS[i]!.name} | ${cells.join(" | ")} |`);
}
for (const r of runs) {
  const total = r.rows.reduce((n, row) => n + row.bytes, 0);
  print(`total (${r.label}): ${total.toLocaleString("en-US")} bytes`);
}
