// Stress of concurrent writers: N `anchorfs mcp` processes × M same-size edits (str_replace and
// batch_edit alternating) on distinct lines of one file, R rounds; reports edits answered,
// landed, lost and refused with FILE_CHANGED. Pass another checkout's main.ts to compare.
// Run: deno run -A scripts/writers_bench.ts [--processes 4] [--edits 8] [--rounds 10] [--main PATH]

import { parseArgs } from "node:util";
import { runWriters } from "../tests/faults/_writers.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

const { values } = parseArgs({
  args: Deno.args,
  options: {
    processes: { type: "string", default: "4" },
    edits: { type: "string", default: "8" },
    rounds: { type: "string", default: "10" },
    lines: { type: "string", default: "64" },
    main: { type: "string" },
  },
});

const dir = await Deno.makeTempDir({ prefix: "anchorfs-writers-bench-" });
try {
  const t0 = performance.now();
  const r = await runWriters({
    dir,
    processes: Number(values.processes),
    edits: Number(values.edits),
    rounds: Number(values.rounds),
    lines: Number(values.lines),
    ...(values.main ? { main: values.main } : {}),
  });
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  print(
    `${values.processes} processes × ${values.edits} edits × ${values.rounds} rounds ` +
      `(${values.main ?? "this checkout"}), ${seconds} s`,
  );
  print(`sent ${r.sent}  answered "Edited" ${r.answered}  landed ${r.landed}  lost ${r.lost}`);
  print(`FILE_CHANGED ${r.changed}  other answers ${r.otherCount}`);
  print(`lost per round: ${r.lostPerRound.join(" ")}`);
  for (const o of r.other) print(`other: ${o}`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
