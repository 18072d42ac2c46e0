// Several real `anchorfs mcp` processes (and optionally `anchorfs edit` runs and an outside
// writer such as `sed -i`) editing distinct lines of one file at once, round after round; counts
// what each answered against what the file holds. Each process may run in its own environment
// (HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME, TMPDIR set elsewhere or unset), as a desktop client's
// server and a terminal's CLI do. Shared by the fault tests (small sizes) and
// scripts/bench/writers_bench.ts (full sizes, also against another checkout).

import * as fs from "node:fs";
import { MAIN_TS, startServer, type TestServer } from "../_harness.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";

/** One process's environment: variables set (beyond what the harness passes) and removed. */
export interface WriterEnv {
  label: string;
  set?: Record<string, string>;
  unset?: string[];
}

/**
 * What another program does to the file while the edits run, one write after another until the
 * round's edits are answered (at most `writes` per round): `sed -i` (rename-save by sed), `rename-save` (an editor's: a new file
 * beside, then mv over), `append` (`>>`, in place), `overwrite` (read, then a truncating `>`
 * in place). Each write marks a line of its own (append adds one), so a lost one shows.
 */
export type OutsideKind = "sed" | "rename-save" | "append" | "overwrite";
export const OUTSIDE_KINDS: readonly OutsideKind[] = ["sed", "rename-save", "append", "overwrite"];

export interface WritersOptions {
  /** A directory the servers start in; the shared file is created there. */
  dir: string;
  processes: number;
  /** Edits per process per round, sent at once (str_replace and batch_edit alternate). */
  edits: number;
  rounds: number;
  /** Lines of the shared file (default 64); processes × edits + cli must not exceed it. */
  lines?: number;
  /** The main.ts to run (default: this checkout's). */
  main?: string;
  /**
   * Other names of the shared file (hard links made before the first round): process p edits
   * through `["shared.txt", ...links][p % (links.length + 1)]`.
   */
  links?: string[];
  /** Environments: server p runs in envs[p % n], CLI run c in envs[(p + c) % n] (default: ours). */
  envs?: WriterEnv[];
  /** `anchorfs edit` runs per round, one edit each (str_replace and batch_edit alternate). */
  cli?: number;
  /** An outside writer racing the edits each round. */
  outside?: { kind: OutsideKind; writes: number };
  /**
   * Runs every anchorfs process under strace, which holds each of these system calls `ms` at its
   * entry (e.g. rename: a server preempted just before its rename, on a busy machine).
   */
  slow?: { syscalls: string[]; ms: number };
  /**
   * Every server and `anchorfs edit` run confined to `dir` (`--allow DIR`): on Linux their file
   * operations then go through descriptors opened beneath it (confined_local.ts).
   */
  confined?: boolean;
}

export interface WritersReport {
  /** Edits sent. */
  sent: number;
  /** Answers saying "Edited". */
  answered: number;
  /** Answered edits whose new line is in the file after the round. */
  landed: number;
  /** Answered edits whose new line is not in the file: lost updates (false "Edited"). */
  lost: number;
  /** Lost updates per kind of edit: str_replace, batch_edit, cli. */
  lostBy: Record<string, number>;
  /** Answered per kind of edit. */
  answeredBy: Record<string, number>;
  /** Answers with FILE_CHANGED (refused, nothing written: allowed). */
  changed: number;
  /** Any other answer: the first few texts. */
  other: string[];
  otherCount: number;
  /** Lost updates per round. */
  lostPerRound: number[];
  /** Outside writes made, and those whose mark is not in the file after the round. */
  outsideWrites: number;
  outsideLost: number;
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

let denoDirCache: string | undefined;

/** Deno's cache folder, passed explicitly: a process without HOME could not find it. */
export async function denoDir(): Promise<string> {
  if (denoDirCache !== undefined) return denoDirCache;
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return denoDirCache = fromEnv;
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return denoDirCache = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

/**
 * Environments as different as the ones anchorfs really meets, with their folders under
 * `scratch`: the test runner's own; XDG_RUNTIME_DIR set (a desktop session); another HOME with
 * no XDG variables; none of HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME and a TMPDIR of its own; and
 * none of the four at all (a client that passes almost nothing).
 */
export async function mixedEnvs(scratch: string): Promise<WriterEnv[]> {
  for (const d of ["run", "home", "tmp"]) await Deno.mkdir(`${scratch}/${d}`, { recursive: true });
  const xdg = ["XDG_RUNTIME_DIR", "XDG_STATE_HOME"];
  return [
    { label: "inherited" },
    { label: "XDG_RUNTIME_DIR set", set: { XDG_RUNTIME_DIR: `${scratch}/run` } },
    { label: "other HOME", set: { HOME: `${scratch}/home` }, unset: xdg },
    { label: "no HOME, own TMPDIR", set: { TMPDIR: `${scratch}/tmp` }, unset: ["HOME", ...xdg] },
    { label: "bare", unset: ["HOME", "TMPDIR", ...xdg] },
  ];
}

/**
 * strace holding each of `syscalls` `ms` at its entry, in the traced process and its threads
 * and children (a server preempted just there, on a busy machine): a command prefix.
 */
export function straceHolding(syscalls: string[], ms: number): string[] {
  const list = syscalls.join(",");
  return [
    "strace",
    "-f",
    "--seccomp-bpf",
    "-qq",
    "-o",
    "/dev/null",
    "-e",
    `trace=${list}`,
    "-e",
    `inject=${list}:delay_enter=${ms * 1000}`,
  ];
}

/**
 * The command prefix of an anchorfs process: strace holding the `slow` system calls, then
 * `env -u …` removing `env.unset` (empty when neither applies).
 */
function launcherOf(options: WritersOptions, env: WriterEnv | undefined): string[] {
  const unset = env?.unset ?? [];
  const slow = options.slow;
  return [
    ...(slow ? straceHolding(slow.syscalls, slow.ms) : []),
    ...(unset.length === 0 ? [] : ["env", ...unset.flatMap((name) => ["-u", name])]),
  ];
}

interface Edit {
  line: number;
  text: string;
  kind: string;
  answer: Promise<string>;
}

function classify(text: string, isError: boolean): string {
  return isError ? text : text.startsWith("Edited") ? "Edited" : text;
}

async function startServers(options: WritersOptions): Promise<TestServer[]> {
  const servers: TestServer[] = [];
  const cache = await denoDir();
  try {
    for (let p = 0; p < options.processes; p++) {
      const env = options.envs?.[p % options.envs.length];
      const launcher = launcherOf(options, env);
      servers.push(
        await startServer({
          client: "v1",
          cwd: options.dir,
          env: { DENO_DIR: cache, ...env?.set },
          ...(options.confined ? { args: ["--allow", options.dir] } : {}),
          ...(launcher.length > 0 ? { launcher } : {}),
          ...(options.main ? { main: options.main } : {}),
        }),
      );
    }
  } catch (e) {
    await Promise.all(servers.map((s) => s.close()));
    throw e;
  }
  return servers;
}

export async function runWriters(options: WritersOptions): Promise<WritersReport> {
  const lines = options.lines ?? 64;
  const { processes, edits, rounds } = options;
  const cli = options.cli ?? 0;
  if (processes * edits + cli > lines) throw new Error("more edits per round than lines");
  const path = `${options.dir}/shared.txt`;
  const report: WritersReport = {
    sent: 0,
    answered: 0,
    landed: 0,
    lost: 0,
    lostBy: {},
    answeredBy: {},
    changed: 0,
    other: [],
    otherCount: 0,
    lostPerRound: [],
    outsideWrites: 0,
    outsideLost: 0,
  };
  const scratch = await Deno.makeTempDir({ prefix: "anchorfs-writers-gates-" });
  const names = ["shared.txt", ...(options.links ?? [])];
  // Written in place each round (Deno.writeTextFile truncates), so the links stay links.
  await Deno.writeTextFile(path, "");
  for (const link of options.links ?? []) await Deno.link(path, `${options.dir}/${link}`);
  const servers = await startServers(options);
  try {
    for (let round = 0; round < rounds; round++) {
      await runRound(options, servers, names, round, lines, scratch, report);
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
  return report;
}

/** The outside writer's reserved lines (none for append, which adds its own). */
function outsideLines(options: WritersOptions, round: number): string[] {
  const o = options.outside;
  if (!o || o.kind === "append") return [];
  return Array.from({ length: o.writes }, (_, k) => `out ${k} base-r${round}`);
}

async function runRound(
  options: WritersOptions,
  servers: TestServer[],
  names: string[],
  round: number,
  lines: number,
  scratch: string,
  report: WritersReport,
): Promise<void> {
  const path = `${options.dir}/shared.txt`;
  const original = Array.from({ length: lines }, (_, i) => lineText(i + 1, `r${round}`));
  await Deno.writeTextFile(path, `${[...original, ...outsideLines(options, round)].join("\n")}\n`);
  const nameOf = (p: number) => names[p % names.length]!;
  const views = await Promise.all(servers.map((s, p) => s.call("view", { path: nameOf(p) })));
  let go!: () => void;
  const start = new Promise<void>((resolve) => (go = resolve));
  const targets: Edit[] = [];
  servers.forEach((server, p) => {
    for (let e = 0; e < options.edits; e++) {
      const line = p * options.edits + e + 1;
      const text = lineText(line, `r${round}p${p}e${e}`);
      const old = original[line - 1]!;
      const id = idOf(views[p]!.text, old);
      const batch = e % 2 === 1 && id !== null;
      const answer = start.then(async () => {
        const r = batch
          ? await server.call("batch_edit", {
            path: nameOf(p),
            operations: [{ op: "replace", start: id, content: text }],
          })
          : await server.call("text_editor", {
            command: "str_replace",
            path: nameOf(p),
            old_text: old,
            new_text: text,
          });
        return classify(r.text, r.isError);
      });
      targets.push({ line, text, kind: batch ? "batch_edit" : "str_replace", answer });
    }
  });
  const cliRuns = await startCliEdits(options, round, original, scratch, start);
  targets.push(...cliRuns.edits);
  const stop = `${scratch}/stop-${round}`;
  const outside = startOutside(options, round, stop, start);
  await cliRuns.ready;
  go();
  const answers = await Promise.all(targets.map((t) => t.answer));
  await Deno.writeTextFile(stop, "");
  const outsideWrites = await outside.done;
  tally(options, report, targets, answers, round, outsideWrites, await Deno.readTextFile(path));
}

function tally(
  options: WritersOptions,
  report: WritersReport,
  targets: Edit[],
  answers: string[],
  round: number,
  outsideWrites: number,
  content: string,
): void {
  const now = content.split("\n");
  let lostNow = 0;
  answers.forEach((answer, i) => {
    const t = targets[i]!;
    report.sent++;
    if (answer === "Edited") {
      report.answered++;
      report.answeredBy[t.kind] = (report.answeredBy[t.kind] ?? 0) + 1;
      if (now[t.line - 1] === t.text) report.landed++;
      else {
        lostNow++;
        report.lostBy[t.kind] = (report.lostBy[t.kind] ?? 0) + 1;
      }
    } else if (answer.includes("FILE_CHANGED") || answer.includes("changed on disk")) {
      report.changed++;
    } else {
      report.otherCount++;
      if (report.other.length < 3) report.other.push(answer.slice(0, 300));
    }
  });
  report.lost += lostNow;
  report.lostPerRound.push(lostNow);
  const kind = options.outside?.kind;
  report.outsideWrites += outsideWrites;
  for (let k = 0; k < outsideWrites; k++) {
    const mark = kind === "append" ? `appended r${round} ${k}` : `out ${k} mark-r${round}`;
    if (!now.includes(mark)) report.outsideLost++;
  }
}

/**
 * The round's `anchorfs edit` runs, started now and each held at a gate: it reads its old text
 * (str_replace) or its operations (batch_edit) from a FIFO, so it is loaded and waiting when the
 * round starts. `ready` settles once every run has opened its FIFO; each gets its input at `go`.
 */
async function startCliEdits(
  options: WritersOptions,
  round: number,
  original: string[],
  scratch: string,
  go: Promise<void>,
): Promise<{ edits: Edit[]; ready: Promise<void> }> {
  const cli = options.cli ?? 0;
  const edits: Edit[] = [];
  const gates: Promise<void>[] = [];
  const cache = await denoDir();
  for (let c = 0; c < cli; c++) {
    const line = options.processes * options.edits + c + 1;
    const text = lineText(line, `r${round}c${c}`);
    const old = original[line - 1]!;
    const batch = c % 2 === 1;
    const fifo = `${scratch}/gate-${round}-${c}`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    if (!made.success) throw new Error(`mkfifo ${fifo} failed`);
    const env = options.envs?.[(options.processes + c) % options.envs.length];
    const args = [
      ...launcherOf(options, env),
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      options.main ?? MAIN_TS,
      "edit",
      ...(options.confined ? ["--allow", options.dir] : []),
      "shared.txt",
      ...(batch ? ["--batch", fifo] : ["--old-file", fifo, "--new", text]),
    ];
    const child = new Deno.Command(args[0]!, {
      args: args.slice(1),
      cwd: options.dir,
      env: { NO_COLOR: "1", DENO_DIR: cache, ...env?.set },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const input = batch
      ? JSON.stringify([{ op: "replace", start: formatLineId(line, old), content: text }])
      : old;
    const opened = openGate(fifo, child);
    gates.push(opened.then(() => {}));
    const answer = opened.then(async (fd) => {
      await go;
      if (fd !== null) {
        fs.writeSync(fd, input);
        fs.closeSync(fd);
      }
      const out = await child.output();
      const dec = new TextDecoder();
      return classify(dec.decode(out.stdout) + dec.decode(out.stderr), out.code !== 0);
    });
    edits.push({ line, text, kind: "cli", answer });
  }
  return { edits, ready: Promise.all(gates).then(() => {}) };
}

/**
 * Opens the FIFO's write end once the reader has it open (a non-blocking open fails with ENXIO
 * until then); null when the child ended first (its answer then tells why).
 */
async function openGate(fifo: string, child: Deno.ChildProcess): Promise<number | null> {
  let ended = false;
  child.status.then(() => (ended = true));
  const until = Date.now() + 120_000; // generous: a loaded machine starts deno slowly
  while (Date.now() < until && !ended) {
    try {
      return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return null;
}

/**
 * The bash loop of one outside writer for a round, from `go` until the file `stop` exists;
 * `done` gives the writes it made.
 */
function startOutside(
  options: WritersOptions,
  round: number,
  stop: string,
  go: Promise<void>,
): { done: Promise<number> } {
  const o = options.outside;
  if (!o) return { done: Promise.resolve(0) };
  const step: Record<OutsideKind, string> = {
    sed: `sed -i "s/^out $k base-r${round}\\$/out $k mark-r${round}/" shared.txt`,
    "rename-save": `sed "s/^out $k base-r${round}\\$/out $k mark-r${round}/" shared.txt ` +
      `> .shared.txt.swp && mv -f .shared.txt.swp shared.txt`,
    append: `echo "appended r${round} $k" >> shared.txt`,
    overwrite: `t=$(cat shared.txt); printf '%s\\n' "\${t/out $k base-r${round}/` +
      `out $k mark-r${round}}" > shared.txt`,
  };
  const script = `read -r _; n=0; for ((k = 0; k < ${o.writes}; k++)); do ` +
    `[ -e ${JSON.stringify(stop)} ] && break; ${step[o.kind]} && n=$((n + 1)); sleep 0.02; ` +
    `done; echo "$n"`;
  const child = new Deno.Command("bash", {
    args: ["-c", script],
    cwd: options.dir,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const done = go.then(async () => {
    await writer.write(new TextEncoder().encode("go\n"));
    await writer.close();
    const out = await child.output();
    return Number(new TextDecoder().decode(out.stdout).trim()) || 0;
  });
  return { done };
}
