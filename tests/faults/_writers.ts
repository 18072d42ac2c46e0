// Several real `anchorfs mcp` processes editing distinct lines of one file at once, round after
// round; counts what each answered against what the file holds. Shared by the fault test (small
// sizes) and scripts/writers_bench.ts (full sizes, also against another checkout).

import { startServer, type TestServer } from "../_harness.ts";

export interface WritersOptions {
  /** A directory the servers start in; the shared file is created there. */
  dir: string;
  processes: number;
  /** Edits per process per round, sent at once (str_replace and batch_edit alternate). */
  edits: number;
  rounds: number;
  /** Lines of the shared file (default 64); processes × edits must not exceed it. */
  lines?: number;
  /** The main.ts to run (default: this checkout's). */
  main?: string;
  /**
   * Other names of the shared file (hard links made before the first round): process p edits
   * through `["shared.txt", ...links][p % (links.length + 1)]`.
   */
  links?: string[];
}

export interface WritersReport {
  /** Edits sent. */
  sent: number;
  /** Answers saying "Edited". */
  answered: number;
  /** Answered edits whose new line is in the file after the round. */
  landed: number;
  /** Answered edits whose new line is not in the file: lost updates. */
  lost: number;
  /** Answers with FILE_CHANGED (refused, nothing written: allowed). */
  changed: number;
  /** Any other answer (should be none): the first few texts. */
  other: string[];
  otherCount: number;
  /** Lost updates per round. */
  lostPerRound: number[];
}

const WIDTH = 24;

function lineText(n: number, tag: string): string {
  return `line ${String(n).padStart(3, "0")} ${tag}`.padEnd(WIDTH, "-").slice(0, WIDTH);
}

function idOf(view: string, content: string): string | null {
  for (const l of view.split("\n")) {
    const m = /^[ +]?([0-9]+:[0-9a-f]{2})\|(.*)$/.exec(l);
    if (m && m[2] === content) return m[1]!;
  }
  return null;
}

export async function runWriters(options: WritersOptions): Promise<WritersReport> {
  const lines = options.lines ?? 64;
  const { processes, edits, rounds } = options;
  if (processes * edits > lines) throw new Error("more edits per round than lines");
  const path = `${options.dir}/shared.txt`;
  const report: WritersReport = {
    sent: 0,
    answered: 0,
    landed: 0,
    lost: 0,
    changed: 0,
    other: [],
    otherCount: 0,
    lostPerRound: [],
  };
  const servers: TestServer[] = [];
  const names = ["shared.txt", ...(options.links ?? [])];
  try {
    // Written in place each round (Deno.writeTextFile truncates), so the links stay links.
    await Deno.writeTextFile(path, "");
    for (const link of options.links ?? []) await Deno.link(path, `${options.dir}/${link}`);
    for (let p = 0; p < processes; p++) {
      servers.push(
        await startServer({
          client: "v1",
          cwd: options.dir,
          ...(options.main ? { main: options.main } : {}),
        }),
      );
    }
    for (let round = 0; round < rounds; round++) {
      const original = Array.from({ length: lines }, (_, i) => lineText(i + 1, `r${round}`));
      await Deno.writeTextFile(path, `${original.join("\n")}\n`);
      const nameOf = (p: number) => names[p % names.length]!;
      const views = await Promise.all(
        servers.map((s, p) => s.call("view", { path: nameOf(p) })),
      );
      const targets: { line: number; text: string; answer: Promise<string> }[] = [];
      let go!: () => void;
      const start = new Promise<void>((resolve) => (go = resolve));
      servers.forEach((server, p) => {
        for (let e = 0; e < edits; e++) {
          const line = p * edits + e + 1;
          const text = lineText(line, `r${round}p${p}e${e}`);
          const old = original[line - 1]!;
          const id = idOf(views[p]!.text, old);
          const answer = start.then(async () => {
            const r = e % 2 === 0 || id === null
              ? await server.call("text_editor", {
                command: "str_replace",
                path: nameOf(p),
                old_text: old,
                new_text: text,
              })
              : await server.call("batch_edit", {
                path: nameOf(p),
                operations: [{ op: "replace", start: id, content: text }],
              });
            return r.isError ? r.text : r.text.startsWith("Edited") ? "Edited" : r.text;
          });
          targets.push({ line, text, answer });
        }
      });
      go();
      const answers = await Promise.all(targets.map((t) => t.answer));
      const now = (await Deno.readTextFile(path)).split("\n");
      let lostNow = 0;
      answers.forEach((answer, i) => {
        const t = targets[i]!;
        report.sent++;
        if (answer === "Edited") {
          report.answered++;
          if (now[t.line - 1] === t.text) report.landed++;
          else lostNow++;
        } else if (answer.includes("FILE_CHANGED") || answer.includes("changed on disk")) {
          report.changed++;
        } else {
          report.otherCount++;
          if (report.other.length < 3) report.other.push(answer.slice(0, 300));
        }
      });
      report.lost += lostNow;
      report.lostPerRound.push(lostNow);
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
  return report;
}
