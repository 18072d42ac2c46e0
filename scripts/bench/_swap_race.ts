// The confinement race (issue 29 item 3), shared by tests/faults/confinement_race_test.ts and the
// `swap` section of scripts/bench/reliability_bench.ts: a server confined with --allow PROJ, an outside
// process swapping PROJ/sub (a real folder) with a symlink to a folder outside PROJ in a loop
// (scripts/bench/_swapper.ts), and a client viewing, creating, editing, searching and listing through
// PROJ/sub meanwhile. Counts the calls whose answer carried outside content and the files written
// outside; the target is 0 of each.

import { REPO_ROOT, type TestServer } from "../../tests/_harness.ts";

/** The folders of one race: `proj` is allowed, `outside` must stay unread and unwritten. */
export interface SwapWorld {
  proj: string;
  outside: string;
  /** The number of files of each kind made inside (and, with the same names, outside). */
  files: number;
}

/** What outside files hold: every one carries this word, and nothing inside does. */
export const SECRET = "SECRET";

/**
 * PROJ/sub with `files` files of each kind (views, edits), the same names outside holding SECRET,
 * an outside-only file (a listing that shows it listed outside), and PROJ/.swap, a symlink to the
 * outside folder, which the swapper trades places with PROJ/sub.
 */
export async function buildSwapWorld(dir: string, files: number): Promise<SwapWorld> {
  const proj = `${dir}/proj`;
  const outside = `${dir}/outside`;
  await Deno.mkdir(`${proj}/sub`, { recursive: true });
  await Deno.mkdir(outside);
  for (const [where, word] of [[`${proj}/sub`, "inside"], [outside, SECRET]] as const) {
    await Deno.writeTextFile(`${where}/a.txt`, `${word} a\n`);
    for (let i = 0; i < files; i++) {
      await Deno.writeTextFile(`${where}/r${i}.txt`, `${word} r${i}\n`);
    }
  }
  await Deno.writeTextFile(`${outside}/only-outside.txt`, `${SECRET} only outside\n`);
  await Deno.symlink(outside, `${proj}/.swap`);
  return { proj, outside, files };
}

/** Every file under `dir` with its content (the outside tree before and after the race). */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) {
      for (const [k, v] of await snapshot(path)) out.set(`${e.name}/${k}`, v);
    } else out.set(e.name, e.isFile ? await Deno.readTextFile(path) : "(not a file)");
  }
  return out;
}

/** The swapper process: started, swapping, stopped (the names back as they were) by `stop`. */
export interface Swapper {
  /** Stops the loop; resolves with the number of exchanges made. */
  stop(): Promise<number>;
}

/** Starts scripts/bench/_swapper.ts on PROJ/sub and PROJ/.swap; resolves once it is swapping. */
export async function startSwapper(world: SwapWorld): Promise<Swapper> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-ffi",
      "--allow-read",
      "--quiet",
      `${REPO_ROOT}/scripts/bench/_swapper.ts`,
      `${world.proj}/sub`,
      `${world.proj}/.swap`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream());
  const reader = lines.getReader();
  let seen = "";
  while (!seen.includes("swapping")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the swapper ended before swapping: ${seen}`);
    seen += value;
  }
  return {
    async stop() {
      await child.stdin.close();
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      await child.status;
      return Number(/swaps (\d+)/.exec(seen)?.[1] ?? 0);
    },
  };
}

/** How many calls of each kind a race makes (through PROJ/sub while it is being swapped). */
export interface RaceCounts {
  views: number;
  creates: number;
  replaces: number;
  searches: number;
  listings: number;
}

/**
 * Per kind: calls made, leaks (answers carrying outside content; for creates, files that landed
 * outside), answers that were refusals.
 */
export interface RaceTally {
  calls: number;
  leaked: number;
  refused: number;
}

export interface RaceResult {
  kinds: Record<keyof RaceCounts, RaceTally>;
  /** Files created or changed outside (by name), after the race. */
  writtenOutside: string[];
  /** Files inside that hold outside content after the race (text copied across). */
  copiedInside: string[];
  swaps: number;
  /** A few answers that leaked, for the report. */
  samples: string[];
}

/** One call of the race: the tool call, and whether its answer leaked. */
interface RaceCall {
  kind: keyof RaceCounts;
  tool: string;
  args: Record<string, unknown>;
  /** Beyond SECRET in the text: a listing naming the outside-only file. */
  leaks?: (text: string) => boolean;
}

function raceCalls(world: SwapWorld, counts: RaceCounts): RaceCall[] {
  const calls: RaceCall[] = [];
  const n = Math.max(
    counts.views,
    counts.creates,
    counts.replaces,
    counts.searches,
    counts.listings,
  );
  for (let i = 0; i < n; i++) {
    if (i < counts.views) {
      calls.push({ kind: "views", tool: "view", args: { path: "sub/a.txt" } });
    }
    if (i < counts.creates) {
      calls.push({
        kind: "creates",
        tool: "text_editor",
        args: { command: "create", path: `sub/new${i}.txt`, file_text: `created ${i}\n` },
      });
    }
    if (i < counts.replaces) {
      const r = i % world.files;
      calls.push({
        kind: "replaces",
        tool: "text_editor",
        args: {
          command: "str_replace",
          path: `sub/r${r}.txt`,
          old_text: `r${r}`,
          new_text: `r${r}`.replace("r", "R"),
        },
      });
    }
    if (i < counts.searches) {
      // A regex that does not spell the word: only a matching line outside puts it in the answer.
      calls.push({
        kind: "searches",
        tool: "view",
        args: { path: "sub", content: "SECR[E]T", regex: true },
      });
    }
    if (i < counts.listings) {
      calls.push({
        kind: "listings",
        tool: "view",
        args: { path: "sub" },
        leaks: (text) => text.includes("only-outside"),
      });
    }
  }
  return calls;
}

/**
 * Runs the race on a server confined to `world.proj` (started by the caller with --allow and
 * --path PROJ): `parallel` calls in flight at a time while the swapper runs.
 */
export async function runSwapRace(
  server: TestServer,
  world: SwapWorld,
  counts: RaceCounts,
  parallel = 4,
): Promise<RaceResult> {
  const before = await snapshot(world.outside);
  const kinds = Object.fromEntries(
    Object.keys(counts).map((k) => [k, { calls: 0, leaked: 0, refused: 0 }]),
  ) as Record<keyof RaceCounts, RaceTally>;
  const samples: string[] = [];
  const calls = raceCalls(world, counts);
  const swapper = await startSwapper(world);
  let next = 0;
  const lane = async () => {
    while (next < calls.length) {
      const call = calls[next++]!;
      const r = await server.call(call.tool, call.args);
      const tally = kinds[call.kind];
      tally.calls++;
      if (r.isError && r.text.includes("is outside the directories")) tally.refused++;
      if (r.text.includes(SECRET) || call.leaks?.(r.text)) {
        tally.leaked++;
        if (samples.length < 3) {
          samples.push(`${call.tool} ${JSON.stringify(call.args)}: ${r.text}`);
        }
      }
    }
  };
  let swaps = 0;
  try {
    await Promise.all(Array.from({ length: parallel }, lane));
  } finally {
    swaps = await swapper.stop();
  }
  const after = await snapshot(world.outside);
  const writtenOutside = [...after].filter(([k, v]) => before.get(k) !== v).map(([k]) => k);
  // A create leaks by where its file landed (its answer carries no content).
  kinds.creates.leaked += writtenOutside.filter((n) => /^new\d+\.txt$/.test(n)).length;
  const inside = await snapshot(`${world.proj}/sub`);
  const copiedInside = [...inside].filter(([, v]) => v.includes(SECRET)).map(([k]) => k);
  return { kinds, writtenOutside, copiedInside, swaps, samples };
}

/** One row of the reliability bench's `swap` section: a race on a server opening by `method`. */
export interface SwapRow {
  /** How the server opened paths; "base" for another checkout (`main`), whatever it does. */
  method: "openat2" | "openat" | "base";
  result: RaceResult;
  seconds: number;
}

/**
 * The `swap` section of scripts/bench/reliability_bench.ts: the race against a server started with
 * --allow and --no-shell, once per way of opening beneath the allowed directory.
 */
export async function runSwapSection(
  counts: RaceCounts,
  log: (line: string) => void,
  /** Another checkout's main.ts to race instead (a base to compare with). */
  main?: string,
): Promise<SwapRow[]> {
  const { startServer } = await import("../../tests/_harness.ts");
  const rows: SwapRow[] = [];
  const methods = main === undefined ? ["openat2", "openat"] as const : ["base"] as const;
  for (const method of methods) {
    log(`  swap race, ${method}…`);
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-reliab-swap-" }));
    try {
      const world = await buildSwapWorld(dir, 20);
      await using server = await startServer({
        client: "v1",
        args: ["--path", world.proj, "--allow", world.proj, "--no-shell"],
        env: method === "openat" ? { ANCHORFS_BENEATH: "openat" } : {},
        ...(main !== undefined && { main }),
      });
      const started = performance.now();
      const result = await runSwapRace(server, world, counts);
      rows.push({ method, result, seconds: (performance.now() - started) / 1000 });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
  return rows;
}

/** The swap section's table: per method and kind, calls, refusals and leaks. */
export function swapTable(rows: readonly SwapRow[]): string {
  const kinds = ["views", "creates", "replaces", "searches", "listings"] as const;
  const head = ["method", ...kinds.map((k) => `${k} leaked / calls (refused)`)];
  const lines = rows.map(({ method, result }) => [
    method,
    ...kinds.map((k) => {
      const t = result.kinds[k];
      return `${t.leaked} / ${t.calls} (${t.refused})`;
    }),
  ]);
  const extra = [
    "method",
    "files created outside",
    "outside files edited",
    "temp files left outside",
    "inside files with outside text",
    "swaps",
    "s",
  ];
  const more = rows.map(({ method, result, seconds }) => {
    const out = result.writtenOutside;
    return [
      method,
      out.filter((n) => /^new\d+\.txt$/.test(n)).length,
      out.filter((n) => /^r\d+\.txt$/.test(n) || n === "a.txt").length,
      out.filter((n) => n.endsWith(".tmp")).length,
      result.copiedInside.length,
      result.swaps,
      seconds.toFixed(0),
    ];
  });
  const md = (h: string[], r: (string | number)[][]) =>
    [`| ${h.join(" | ")} |`, `|${h.map((_, i) => (i ? "---:" : "---")).join("|")}|`]
      .concat(r.map((x) => `| ${x.join(" | ")} |`)).join("\n");
  return `${md(head, lines)}\n\n${md(extra, more)}`;
}
