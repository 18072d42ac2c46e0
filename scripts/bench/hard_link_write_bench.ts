// What writing a hard-linked file in place costs against the usual temp-file-and-rename write:
// LocalBackend.writeFileAtomic (with the content check an edit passes) on a file with one name
// and on the same size of file with two, median of several runs per size.
//
//   deno run -A scripts/bench/hard_link_write_bench.ts [--runs 15]

import { parseArgs } from "node:util";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { tempDir } from "../../tests/_harness.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function median(samples: number[]): number {
  return samples.slice().sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

function content(bytes: number, tag: number): Uint8Array {
  const out = new Uint8Array(bytes).fill(0x61);
  for (let at = 79; at < bytes; at += 80) out[at] = 0x0a;
  out[0] = 0x30 + (tag % 10);
  return out;
}

/** Median ms of `runs` edits of `path`, each based on what the previous one wrote. */
async function timeWrites(backend: LocalBackend, path: string, size: number, runs: number) {
  let current = content(size, 0);
  await Deno.writeFile(path, current);
  const samples: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const next = content(size, i);
    const t = performance.now();
    await backend.withWriteLock(
      path,
      () => backend.writeFileAtomic(path, next, { expect: { bytes: current } }),
    );
    samples.push(performance.now() - t);
    current = next;
  }
  return median(samples);
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
  const runs = Number(values.runs ?? 15);
  await using dir = await tempDir("anchorfs-links-bench-");
  const backend = new LocalBackend();
  print(
    `Deno ${Deno.version.deno}, ${Deno.build.os}, load ${
      Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
    }`,
  );
  print("| size | one name: rename (ms) | two names: in place (ms) |");
  print("|---|---|---|");
  for (const size of [4 * 1024, 1024 * 1024, 16 * 1024 * 1024]) {
    const plain = await timeWrites(backend, `${dir.path}/plain-${size}.txt`, size, runs);
    const linked = `${dir.path}/linked-${size}.txt`;
    await Deno.writeTextFile(linked, "");
    await Deno.link(linked, `${dir.path}/other-${size}.txt`);
    const inPlace = await timeWrites(backend, linked, size, runs);
    print(`| ${size / 1024} KiB | ${plain.toFixed(1)} | ${inPlace.toFixed(1)} |`);
  }
  await backend.close();
}
