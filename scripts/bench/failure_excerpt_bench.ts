// Failure-excerpt benchmark: each failing run of tests/fixtures/failure_corpus/ (real runner
// output, see its README) is replayed as a command through the real MCP server, and the first
// result is checked for every failure's name, expected value, actual value and location. Prints
// per output what the result holds, its size on the wire and the size of its failure section.
//
//   deno run -A scripts/bench/failure_excerpt_bench.ts [--main path/to/main.ts] [--json]
// --main runs another checkout's server (e.g. main's) for a before/after comparison.

import { parseArgs } from "node:util";
import { REPO_ROOT, startServer } from "../../tests/_harness.ts";

const CORPUS = `${REPO_ROOT}/tests/fixtures/failure_corpus`;
const enc = new TextEncoder();

export interface CorpusFailure {
  name: string;
  expected: string;
  actual: string;
  location: string;
}

export interface CorpusEntry {
  file: string;
  runner: string;
  command: string;
  exit: number;
  made: "real" | "hand-written";
  failures: CorpusFailure[];
}

export function loadCorpus(): CorpusEntry[] {
  return JSON.parse(Deno.readTextFileSync(`${CORPUS}/manifest.json`));
}

/** The parts of each failure that `text` lacks ("2: expected"), empty when it holds them all. */
export function missingParts(text: string, entry: CorpusEntry): string[] {
  const missing: string[] = [];
  entry.failures.forEach((f, i) => {
    for (const part of ["name", "expected", "actual", "location"] as const) {
      if (!text.includes(f[part])) missing.push(`${i + 1}: ${part}`);
    }
  });
  return missing;
}

/** The command that prints a fixture as its runner did and exits with the runner's code. */
export function replayCommand(file: string, exit: number): string {
  return `dd if=${file} status=none; exit ${exit}`;
}

interface Row {
  file: string;
  runner: string;
  made: string;
  outputBytes: number;
  resultBytes: number;
  failureBytes: number;
  missing: string[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { main: { type: "string" }, json: { type: "boolean" } },
  });
  const corpus = loadCorpus();
  const dir = await Deno.makeTempDir({ prefix: "anchorfs-failure-bench-" });
  const state = await Deno.makeTempDir({ prefix: "anchorfs-failure-bench-state-" });
  try {
    for (const e of corpus) await Deno.copyFile(`${CORPUS}/${e.file}`, `${dir}/${e.file}`);
    await using server = await startServer({
      client: "v1",
      args: ["--path", dir, "--foreground-window", "30", "--state-dir", state],
      ...(values.main && { main: values.main }),
    });
    const rows: Row[] = [];
    for (const e of corpus) {
      const r = await server.call("shell", { command: replayCommand(e.file, e.exit) });
      const section = /--- failure-looking lines[\s\S]*?(?=\n--- output \(tail\) ---)/.exec(r.text);
      rows.push({
        file: e.file,
        runner: e.runner,
        made: e.made,
        outputBytes: (await Deno.stat(`${dir}/${e.file}`)).size,
        resultBytes: enc.encode(JSON.stringify(r.raw.content ?? [])).length,
        failureBytes: section ? enc.encode(section[0]).length : 0,
        missing: missingParts(r.text, e),
      });
    }
    print(rows, values.json === true);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
}

function print(rows: Row[], json: boolean): void {
  const whole = rows.filter((r) => r.missing.length === 0).length;
  if (json) {
    // deno-lint-ignore no-console
    console.log(JSON.stringify({ whole, outputs: rows.length, rows }, null, 2));
    return;
  }
  const lines = [
    "| output | runner | output bytes | result bytes | failure section | every failure's name, expected, actual, location |",
    "| --- | --- | ---: | ---: | ---: | --- |",
    ...rows.map((r) =>
      `| ${r.file}${
        r.made === "real" ? "" : " (hand-written)"
      } | ${r.runner} | ${r.outputBytes} | ${r.resultBytes} | ${r.failureBytes} | ${
        r.missing.length === 0 ? "yes" : `no: missing ${r.missing.join(", ")}`
      } |`
    ),
    `| all (${whole}/${rows.length} whole) | | ${sum(rows, "outputBytes")} | ${
      sum(rows, "resultBytes")
    } | ${sum(rows, "failureBytes")} | |`,
  ];
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
}

function sum(rows: Row[], key: "outputBytes" | "resultBytes" | "failureBytes"): number {
  return rows.reduce((n, r) => n + r[key], 0);
}

if (import.meta.main) await main();
