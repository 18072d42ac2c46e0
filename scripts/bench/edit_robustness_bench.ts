// Edit-robustness benchmark, no language model needed: generated scenarios of the ways agents'
// edits go wrong, run through the real ops (view, text_editor, batch_edit) over a MemoryBackend.
// Each scenario ends as: applied correctly, failed loudly and recovered with one retry built
// only from the error text, failed loudly without a one-step recovery, or silently wrong.
//
//   deno run -A scripts/bench/edit_robustness_bench.ts [--scenarios 10000] [--per-category N] [--seed 7]
//       [--baseline]
// --scenarios is the total, split evenly over the categories (rounded up); --per-category
// overrides it. --baseline runs the same scenarios with the shown-lines memory disabled (8-bit
// ids only). The exit code is 1 when any scenario is silently wrong.

import { parseArgs } from "node:util";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { AnchorError, formatError } from "../../lib/core/errors.ts";
import { formatLineId, hashLine } from "../../lib/core/edit/line_id.ts";
import { runBatchEdit } from "../../lib/ops/edit/batch_edit.ts";
import type { EditServices } from "../../lib/ops/edit/commit.ts";
import { FileLocks } from "../../lib/core/file_locks.ts";
import { runTextEditor } from "../../lib/ops/edit/text_editor.ts";
import { UndoStore } from "../../lib/ops/edit/undo_store.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession, type Session } from "../../lib/ops/session.ts";
import { viewText } from "../../tests/ops/_view_text.ts";

type Outcome = "applied" | "recovered" | "loud" | "silent";

interface World {
  disk: MemoryBackend;
  services: EditServices;
  session: Session;
}

function world(): World {
  const disk = new MemoryBackend();
  const locations = new Locations(disk);
  return {
    disk,
    services: { locations, undo: new UndoStore(), editLocks: new FileLocks() },
    session: createSession(locations.localAt("/")),
  };
}

const enc = new TextEncoder();
const PATH = "/src/app.ts";

/** --baseline: forget what views showed, i.e. verify only the 8-bit ids (no range memory). */
let baseline = false;

async function viewAll(w: World): Promise<void> {
  await viewText(w.services.locations, w.session, { path: PATH });
  if (baseline) w.session.shown.forget(`memory\u0000${PATH}`);
}

// -------------------------------------------------------------------------------------------
// Deterministic randomness and generated source files

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

interface Block {
  /** 0-based first line of the block in the file. */
  at: number;
  lines: string[];
}

/** A source file of small functions: many "}" and blank lines, so 8-bit hashes collide. */
function sourceFile(r: () => number, unit = "  "): { lines: string[]; blocks: Block[] } {
  const lines = ['import { run } from "./run.ts";', ""];
  const blocks: Block[] = [];
  const count = int(r, 4, 9);
  for (let f = 0; f < count; f++) {
    const k = int(r, 1, 999);
    const body = [
      `function f${f}_${k}(a, b) {`,
      `${unit}const v${k} = a + ${k};`,
      `${unit}if (v${k} > b) {`,
      `${unit}${unit}run("f${f}", v${k});`,
      `${unit}${unit}return v${k};`,
      `${unit}}`,
      `${unit}return b;`,
      `}`,
      "",
    ];
    blocks.push({ at: lines.length, lines: body.slice(0, 8) });
    lines.push(...body);
  }
  return { lines, blocks };
}

// -------------------------------------------------------------------------------------------
// Running edits and judging outcomes

async function put(w: World, text: string | Uint8Array): Promise<void> {
  w.disk.put(PATH, typeof text === "string" ? enc.encode(text) : text);
  await Promise.resolve();
}

async function read(w: World): Promise<Uint8Array> {
  return await w.disk.readFile(PATH);
}

async function attempt(
  body: () => Promise<unknown>,
): Promise<{ ok: true } | { ok: false; text: string }> {
  try {
    await body();
    return { ok: true };
  } catch (e) {
    if (!(e instanceof AnchorError)) throw e;
    return { ok: false, text: formatError(e) };
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Judges one scenario: `edit` is the agent's call; `intended` the bytes the agent meant (null when
 * the right outcome is a refusal); `retry` builds the second call from the error text alone.
 */
async function judge(
  w: World,
  edit: () => Promise<unknown>,
  intended: Uint8Array | null,
  retry: (errorText: string) => (() => Promise<unknown>) | null,
  recoveredIntended: Uint8Array | null = intended,
): Promise<Outcome> {
  const before = await read(w);
  const first = await attempt(edit);
  if (first.ok) {
    return intended !== null && sameBytes(await read(w), intended) ? "applied" : "silent";
  }
  if (!sameBytes(await read(w), before)) return "silent"; // a failure must write nothing
  const second = retry(first.text);
  if (!second) return "loud";
  const again = await attempt(second);
  if (!again.ok) return "loud";
  return recoveredIntended !== null && sameBytes(await read(w), recoveredIntended)
    ? "recovered"
    : "silent";
}

/** Every `N:hh|content` line of an error text. */
function renderedLines(text: string): Map<number, { id: string; content: string }> {
  const out = new Map<number, { id: string; content: string }>();
  for (const m of text.matchAll(/^(?:\s*)?([1-9][0-9]*):([0-9a-f]{2})\|(.*)$/gm)) {
    out.set(Number(m[1]), { id: `${m[1]}:${m[2]}`, content: m[3]! });
  }
  return out;
}

/**
 * A careful agent's retry of a range replace: find the range's first line by content among the
 * lines the report shows (nearest to where it was), take the line `span` below as the end, and
 * use both ids only if the report shows them with the expected content.
 */
function retryRange(
  text: string,
  oldStart: number,
  startContent: string,
  span: number,
  endContent: string,
): { start: string; end: string } | null {
  const shown = renderedLines(text);
  const starts = [...shown.entries()].filter(([, v]) => v.content === startContent).map(([n]) => n)
    .sort((a, b) => Math.abs(a - oldStart) - Math.abs(b - oldStart));
  for (const s of starts) {
    const end = shown.get(s + span);
    const interiorShown = Array.from({ length: span + 1 }, (_, k) => shown.has(s + k)).every(
      Boolean,
    );
    if (end && end.content === endContent && interiorShown) {
      return { start: shown.get(s)!.id, end: end.id };
    }
  }
  return null;
}

const join = (lines: string[], eol = "\n") => lines.map((l) => l + eol).join("");

// -------------------------------------------------------------------------------------------
// Categories

type Scenario = (r: () => number) => Promise<Outcome>;

/** A formatter reflows the file between view and edit: lines above the target shift. */
const formatterShift: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  await put(w, join(lines));
  await viewAll(w);
  const block = pick(r, blocks.slice(1));
  // Target: the if-block (its last line is "  }": the classic colliding end line).
  const s = block.at + 3;
  const e = block.at + 6;
  const replacement = [lines[s - 1]!, `    return v0;`, `  }`];
  // The formatter: blank lines removed or added above, a trailing comma style change elsewhere.
  const now = lines.slice();
  const shift = pick(r, [-1, 1, 2, 3]);
  if (shift < 0) {
    const blankIdx = now.findIndex((l, i) => l === "" && i < block.at);
    if (blankIdx >= 0) now.splice(blankIdx, 1);
  } else {
    for (let k = 0; k < shift; k++) now.splice(int(r, 1, block.at), 0, "");
  }
  const delta = now.length - lines.length;
  await put(w, join(now));
  const intendedLines = now.slice();
  intendedLines.splice(s - 1 + delta, e - s + 1, ...replacement);
  const intended = enc.encode(join(intendedLines));
  const ops = (start: string, end: string) => [
    { op: "replace", start, end, content: replacement.join("\n") },
  ];
  return await judge(
    w,
    () =>
      runBatchEdit(w.services, w.session, {
        path: PATH,
        operations: ops(formatLineId(s, lines[s - 1]!), formatLineId(e, lines[e - 1]!)),
      }),
    intended,
    (text) => {
      const ids = retryRange(text, s, lines[s - 1]!, e - s, lines[e - 1]!);
      return ids
        ? () =>
          runBatchEdit(w.services, w.session, { path: PATH, operations: ops(ids.start, ids.end) })
        : null;
    },
  );
};

/** A formatter re-indented the target block itself: the edit must not land on changed text. */
const formatterChangedTarget: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  await put(w, join(lines));
  await viewAll(w);
  const block = pick(r, blocks);
  const s = block.at + 3;
  const e = block.at + 6;
  const now = lines.slice();
  for (let k = s - 1; k < e; k++) now[k] = `  ${now[k]}`; // 2 -> 4 spaces
  if (r() < 0.5) now.splice(int(r, 1, block.at), 0, ""); // and sometimes a shift as well
  await put(w, join(now));
  const first = await attempt(() =>
    runBatchEdit(w.services, w.session, {
      path: PATH,
      operations: [{
        op: "replace",
        start: formatLineId(s, lines[s - 1]!),
        end: formatLineId(e, lines[e - 1]!),
        content: "  // replaced",
      }],
    })
  );
  // Refusing is right: the text the agent saw is gone. A recovery would need a fresh look at
  // the block, which the report shows only around the ids.
  if (first.ok) return "silent";
  return "loud";
};

/** Another writer inserts a function above the target between view and edit. */
const concurrentInsertion: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  await put(w, join(lines));
  await viewAll(w);
  const block = pick(r, blocks.slice(1));
  const anchor = block.at + 2; // 1-based: the "const vK = ..." line
  const inserted = ["function added() {", "  return 0;", "}", ""];
  const now = lines.slice();
  const at = pick(r, blocks.filter((b) => b.at < block.at)).at;
  now.splice(at, 0, ...inserted);
  await put(w, join(now));
  const log = `  run("log", 1);`;
  const intendedLines = now.slice();
  intendedLines.splice(anchor + inserted.length, 0, log);
  const intended = enc.encode(join(intendedLines));
  return await judge(
    w,
    () =>
      runBatchEdit(w.services, w.session, {
        path: PATH,
        operations: [{
          op: "insert",
          anchor: formatLineId(anchor, lines[anchor - 1]!),
          content: log,
        }],
      }),
    intended,
    (text) => {
      const shown = [...renderedLines(text).entries()].filter(([, v]) =>
        v.content === lines[anchor - 1]
      );
      if (shown.length === 0) return null;
      shown.sort(([a], [b]) => Math.abs(a - anchor) - Math.abs(b - anchor));
      const id = shown[0]![1].id;
      return () =>
        runBatchEdit(w.services, w.session, {
          path: PATH,
          operations: [{ op: "insert", anchor: id, content: log }],
        });
    },
  );
};

/** str_replace of a block whose indentation in old_text/new_text drifted from the file's. */
function driftScenario(fileUnit: string, textUnit: string, dropFirst: boolean): Scenario {
  return async (r) => {
    const w = world();
    const { lines, blocks } = sourceFile(r, fileUnit);
    await put(w, join(lines));
    const block = pick(r, blocks);
    const body = block.lines.slice(2, 6); // if-block: 4 lines at depth 1-2
    const re = (l: string) => l.replaceAll(fileUnit, textUnit);
    const oldLines = body.map(re);
    const newBody = [
      body[0]!,
      body[1]!,
      `${fileUnit}${fileUnit}run("again", 2);`,
      body[2]!,
      body[3]!,
    ];
    const newLines = newBody.map(re);
    if (dropFirst) {
      // Copied from mid-line: the first line without its indentation.
      oldLines[0] = oldLines[0]!.trimStart();
      newLines[0] = newLines[0]!.trimStart();
    }
    const intendedLines = lines.slice();
    intendedLines.splice(block.at + 2, body.length, ...newBody);
    const intended = enc.encode(join(intendedLines));
    return await judge(
      w,
      () =>
        runTextEditor(w.services, w.session, {
          command: "str_replace",
          path: PATH,
          old_text: oldLines.join("\n"),
          new_text: newLines.join("\n"),
        }),
      intended,
      (text) => closestRegionRetry(w, text, newBody),
    );
  };
}

/** After NO_MATCH: replace the closest region shown, by its ids, with correctly indented lines. */
function closestRegionRetry(
  w: World,
  text: string,
  content: string[],
): (() => Promise<unknown>) | null {
  const m = /Closest region: lines ([0-9]+)-([0-9]+):/.exec(text);
  if (!m) return null;
  const shown = renderedLines(text);
  const start = shown.get(Number(m[1]));
  const end = shown.get(Number(m[2]));
  if (!start || !end) return null;
  return () =>
    runBatchEdit(w.services, w.session, {
      path: PATH,
      operations: [{ op: "replace", start: start.id, end: end.id, content: content.join("\n") }],
    });
}

const indentationDrift: Scenario = (r) =>
  driftScenario("    ", pick(r, ["  ", "      "]), r() < 0.5)(r);

const tabsVsSpaces: Scenario = (r) => driftScenario("\t", pick(r, ["    ", "  "]), r() < 0.3)(r);

/** CRLF files edited with LF text: the file must change and keep CRLF on every line. */
const crlfFiles: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  await put(w, join(lines, "\r\n"));
  const block = pick(r, blocks);
  const body = block.lines.slice(3, 5);
  const newBody = [body[0]!, `    run("crlf", 3);`, body[1]!];
  const useBatch = r() < 0.3;
  const intendedLines = lines.slice();
  intendedLines.splice(block.at + 3, 2, ...newBody);
  const intended = enc.encode(join(intendedLines, "\r\n"));
  if (useBatch) {
    await viewAll(w);
    const s = block.at + 4;
    return await judge(
      w,
      () =>
        runBatchEdit(w.services, w.session, {
          path: PATH,
          operations: [{
            op: "replace",
            start: formatLineId(s, lines[s - 1]!),
            end: formatLineId(s + 1, lines[s]!),
            content: newBody.join("\n") + "\n",
          }],
        }),
      intended,
      () => null,
    );
  }
  return await judge(
    w,
    () =>
      runTextEditor(w.services, w.session, {
        command: "str_replace",
        path: PATH,
        old_text: body.join("\n"),
        new_text: newBody.join("\n"),
      }),
    intended,
    () => null,
  );
};

/** old_text/new_text escaped twice by the model; some lines hold a real "\n" in a string. */
const doubleEscaped: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  const block = pick(r, blocks);
  const withLiteral = r() < 0.5;
  if (withLiteral) lines[block.at + 3] = `    run("line\\n", 1);`; // a real backslash-n in a string
  await put(w, join(lines));
  const body = lines.slice(block.at + 2, block.at + 5);
  const newBody = [body[0]!, `    console.log("hit\\n");`, body[1]!, body[2]!];
  const style = pick(r, ["sloppy", "full"] as const);
  const escape = (text: string) =>
    style === "full"
      ? JSON.stringify(text).slice(1, -1) // every backslash and quote escaped once more
      : text.replaceAll("\n", "\\n"); // only newlines escaped: string literals left as they were
  const intendedLines = lines.slice();
  intendedLines.splice(block.at + 2, body.length, ...newBody);
  const intended = enc.encode(join(intendedLines));
  return await judge(
    w,
    () =>
      runTextEditor(w.services, w.session, {
        command: "str_replace",
        path: PATH,
        old_text: escape(body.join("\n")),
        new_text: escape(newBody.join("\n")),
      }),
    intended,
    (text) => closestRegionRetry(w, text, newBody),
  );
};

/** The same snippet twice: str_replace must refuse and list both; retry by id on the meant one. */
const duplicatedSnippets: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  const snippet = ["  if (ready) {", '    run("go", 0);', "  }"];
  const a = pick(r, blocks.slice(0, 2));
  const b = pick(r, blocks.slice(2));
  // Insert the snippet in two functions (the later one first, to keep `a.at` valid).
  lines.splice(b.at + 1, 0, ...snippet);
  lines.splice(a.at + 1, 0, ...snippet);
  await put(w, join(lines));
  if (r() < 0.5) await viewAll(w); // with and without a memory of what was shown
  const meant = r() < 0.5 ? a.at + 2 : b.at + 2 + snippet.length; // 1-based first line
  const newSnippet = ["  if (ready) {", '    run("go", 1);', "  }"];
  const intendedLines = lines.slice();
  intendedLines.splice(meant - 1, snippet.length, ...newSnippet);
  const intended = enc.encode(join(intendedLines));
  return await judge(
    w,
    () =>
      runTextEditor(w.services, w.session, {
        command: "str_replace",
        path: PATH,
        old_text: snippet.join("\n"),
        new_text: newSnippet.join("\n"),
      }),
    null, // applying either one blindly is not what the agent meant half the time
    (text) => {
      // The agent knows which occurrence it meant by its line number (from its view).
      const m = new RegExp(`^Match [0-9]+: (${meant}:[0-9a-f]{2})\\.\\.([0-9]+:[0-9a-f]{2})$`, "m")
        .exec(text);
      if (!m) return null;
      return () =>
        runBatchEdit(w.services, w.session, {
          path: PATH,
          operations: [{ op: "replace", start: m[1], end: m[2], content: newSnippet.join("\n") }],
        });
    },
    intended,
  );
};

/** A line changed after the view but kept its 8-bit hash: the edit must not land on it. */
const hashKeptChange: Scenario = async (r) => {
  const w = world();
  const { lines, blocks } = sourceFile(r);
  await put(w, join(lines));
  await viewAll(w);
  const block = pick(r, blocks);
  const target = block.at + 4; // 1-based: run("fN", vK);
  const original = lines[target - 1]!;
  let changed = "";
  for (let k = 0; k < 100_000; k++) {
    const candidate = `${original} // v${k}`;
    if (hashLine(candidate) === hashLine(original)) {
      changed = candidate;
      break;
    }
  }
  const now = lines.slice();
  now[target - 1] = changed;
  await put(w, join(now));
  const single = r() < 0.5;
  const start = single ? target : target - 2;
  const end = single ? target : target + 2;
  const op = {
    op: "replace",
    start: formatLineId(start, lines[start - 1]!),
    end: formatLineId(end, lines[end - 1]!),
    content: "    // replaced",
  };
  // The right outcome is a refusal that shows the changed line with its fresh id.
  const first = await attempt(() =>
    runBatchEdit(w.services, w.session, { path: PATH, operations: [op] })
  );
  if (first.ok) return "silent";
  const shown = renderedLines(first.text).get(target);
  return shown && shown.content === changed ? "recovered" : "loud";
};

const CATEGORIES: [string, Scenario][] = [
  ["formatter shifted lines (batch_edit range)", formatterShift],
  ["concurrent insertion above target (batch_edit insert)", concurrentInsertion],
  ["indentation drift in old_text (str_replace)", indentationDrift],
  ["tabs vs spaces (str_replace)", tabsVsSpaces],
  ["CRLF files (str_replace, batch_edit)", crlfFiles],
  ["double-escaped newlines (str_replace)", doubleEscaped],
  ["duplicated snippets (str_replace)", duplicatedSnippets],
  ["changed line kept its 8-bit hash (batch_edit)", hashKeptChange],
  ["formatter re-indented the target itself (batch_edit range)", formatterChangedTarget],
];

// -------------------------------------------------------------------------------------------

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      scenarios: { type: "string", default: "10000" },
      "per-category": { type: "string" },
      seed: { type: "string", default: "7" },
      baseline: { type: "boolean", default: false },
    },
  });
  baseline = values.baseline === true;
  const per = values["per-category"] !== undefined
    ? Number(values["per-category"])
    : Math.ceil(Number(values.scenarios) / CATEGORIES.length);
  if (!Number.isInteger(per) || per < 1) {
    Deno.stderr.writeSync(
      enc.encode("edit_robustness_bench: --scenarios and --per-category take a positive count\n"),
    );
    Deno.exit(2);
  }
  const seed = Number(values.seed);
  const rows: string[] = [];
  const totals = { n: 0, applied: 0, recovered: 0, loud: 0, silent: 0 };
  for (const [c, [name, scenario]] of CATEGORIES.entries()) {
    const counts = { applied: 0, recovered: 0, loud: 0, silent: 0 };
    for (let i = 0; i < per; i++) {
      const outcome = await scenario(rng(seed * 7919 + c * 104729 + i));
      counts[outcome]++;
    }
    totals.n += per;
    for (const k of ["applied", "recovered", "loud", "silent"] as const) totals[k] += counts[k];
    rows.push(
      `| ${name} | ${per} | ${counts.applied} | ${counts.recovered} | ${counts.loud} | ${counts.silent} |`,
    );
  }
  const out = [
    "| category | scenarios | applied correctly | failed loudly, recovered in one step | failed loudly, no one-step recovery | silently wrong |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    `| **total** | ${totals.n} | ${totals.applied} | ${totals.recovered} | ${totals.loud} | ${totals.silent} |`,
  ];
  out.push(
    "",
    `${totals.silent} of ${totals.n} scenarios silently wrong${
      totals.silent === 0 ? "" : " (target: 0)"
    }; seed ${seed}${baseline ? ", --baseline" : ""}.`,
  );
  Deno.stdout.writeSync(enc.encode(`${out.join("\n")}\n`));
  if (totals.silent > 0) Deno.exitCode = 1;
}
