// kill -9 of the real server while it writes a hard-linked file in place, aimed at the overwrite
// (a few ms after the recovery copy appears): counts what each kill left. "torn" files are
// expected; what must never happen is a torn file without a whole copy of the old content.
//
//   deno run -A scripts/bench/hard_link_kill_bench.ts [--iterations 16] [--lines 1000000]

import { parseArgs } from "node:util";
import { RawServer, sleep } from "./_reliability_server.ts";
import { tempDir } from "../../tests/_harness.ts";

const enc = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(enc.encode(`${text}\n`));

function bigText(lines: number): string {
  const out: string[] = [];
  for (let n = 0; n < lines; n++) {
    if (n === 1000) out.push("MARKER_OLD");
    out.push(`${String(n).padStart(9, "0")} the quick brown fox jumps`);
  }
  return `${out.join("\n")}\n`;
}

function copiesIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".orig"));
}

/** Runs one edit and kills its server `delayMs` after the recovery copy appears. */
async function killDuringWrite(dir: string, args: string[], delayMs: number): Promise<void> {
  const server = await RawServer.start({ cwd: dir, args });
  const edit = server.call("text_editor", {
    command: "str_replace",
    path: "big.txt",
    old_text: "MARKER_OLD",
    new_text: "MARKER_NEW_AND_LONGER",
  }, 60_000);
  let done = false;
  edit.finally(() => done = true);
  while (!done && copiesIn(dir).length === 0) await sleep(1);
  await sleep(delayMs);
  server.kill();
  await server.close(100);
  await edit;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { iterations: { type: "string" }, lines: { type: "string" } },
  });
  const iterations = Number(values.iterations ?? 16);
  await using dir = await tempDir("anchorfs-kill-links-");
  await using state = await tempDir("anchorfs-kill-links-state-");
  const file = `${dir.path}/big.txt`;
  const oldText = bigText(Number(values.lines ?? 1_000_000));
  const newText = oldText.replace("MARKER_OLD", "MARKER_NEW_AND_LONGER");
  const args = ["--path", dir.path, "--state-dir", state.path, "--max-file-bytes", "64M"];
  const tally = new Map<string, number>();
  for (let i = 0; i < iterations; i++) {
    for (const name of [...copiesIn(dir.path), "twin.txt"]) {
      await Deno.remove(`${dir.path}/${name}`).catch(() => {});
    }
    await Deno.writeTextFile(file, oldText);
    await Deno.link(file, `${dir.path}/twin.txt`);
    await killDuringWrite(dir.path, args, i % 8);
    const now = await Deno.readTextFile(file);
    const copies = copiesIn(dir.path).map((n) => Deno.readTextFileSync(`${dir.path}/${n}`));
    const left = now === oldText ? "old" : now === newText ? "new" : "torn";
    const copy = copies.length === 0
      ? ""
      : copies.every((c) => c === oldText)
      ? " + whole copy"
      : " + BROKEN COPY";
    tally.set(`${left}${copy}`, (tally.get(`${left}${copy}`) ?? 0) + 1);
  }
  print(
    `${(oldText.length / 1e6).toFixed(0)} MB file, ${iterations} kills, load ${
      Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
    }`,
  );
  for (const [what, count] of [...tally].sort()) print(`  ${what}: ${count}`);
}
