// Builds the release binaries with `deno compile` for every supported target, from the bundle
// (scripts/release/bundle.ts), and writes SHA256SUMS beside them.
// `deno compile` needs the `denort` runtime of each target; Deno downloads it from its release
// host unless DENORT_BIN (or DENORT_BIN_<TARGET>, e.g. DENORT_BIN_AARCH64_APPLE_DARWIN) names a
// local copy. When neither is possible, this script says so clearly instead of failing deep
// inside deno.
//
// Usage: deno run -A scripts/release/compile.ts [--target TARGET]... [--out DIR]   (default: all, dist)

import { parseArgs } from "node:util";
import { type ParseArgsFailure, parseArgsMessage } from "../../lib/core/usage_text.ts";
import { VERSION } from "../../lib/version.ts";
import { bundle, MODULES_DIR } from "./bundle.ts";

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
  "aarch64-pc-windows-msvc",
] as const;
export type Target = typeof TARGETS[number];

const RELEASE_HOST = "https://dl.deno.land";

/**
 * V8 flags baked into the binaries: V8's linear-time regexp engine, and the switch to it when a
 * match backtracks too much. Regex search is linear without them (re2js); with them, more
 * patterns run on V8's faster engine (lib/core/search/linear_regex.ts). And a 2 MB cap on each
 * isolate's semi-spaces (the search workers' and the server's): a worker's young generation
 * otherwise grows to 16 MB semi-spaces while it decodes files, and V8 keeps those pages for the
 * process after the worker ends; a peak of 294 → 225 MB on a node_modules tree (issue 26,
 * docs/benchmarks.md). And `gc` in every isolate: a search worker whose heap grew over a burst
 * of searches collects it in place (parallel_scan.ts), where without it the worker is replaced
 * and its successor compiles its code again (regex searches ~10 % slower). And an ended worker's
 * heap pages handed back to the system: by default V8 passes them to a pool that another
 * isolate's task runner should release, which never happened under Deno, so every worker that
 * ended (idle search workers after 5 s, replaced ones, outline workers) left its pages resident:
 * an idle server after one search held 88 MB, 73 with this flag (docs/benchmarks.md, issue 26).
 * Only a launch flag reaches worker isolates: V8 freezes its flags at start. deno.json's tasks
 * and the npm launcher (packaging/npm/bin/anchorfs.cjs) pass the same.
 */
export const V8_FLAGS =
  "--enable-experimental-regexp-engine-on-excessive-backtracks,--enable-experimental-regexp-engine," +
  "--max-semi-space-size=2,--expose-gc,--no-memory-pool-share-memory-on-teardown";

/** The env var that names a target's denort, e.g. DENORT_BIN_X86_64_UNKNOWN_LINUX_GNU. */
export function targetEnvVar(target: Target): string {
  return `DENORT_BIN_${target.toUpperCase().replaceAll("-", "_")}`;
}

export function hostTarget(): Target {
  const arch = Deno.build.arch === "aarch64" ? "aarch64" : "x86_64";
  const os = Deno.build.os === "darwin"
    ? "apple-darwin"
    : Deno.build.os === "windows"
    ? "pc-windows-msvc"
    : "unknown-linux-gnu";
  return `${arch}-${os}` as Target;
}

export function outputName(target: Target): string {
  return `anchorfs-${VERSION}-${target}${target.includes("windows") ? ".exe" : ""}`;
}

type RuntimeSource =
  | { kind: "env"; variable: string; path: string }
  | { kind: "cache"; path: string }
  | { kind: "download" }
  | { kind: "missing"; reason: string };

function denoDir(): string {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? "";
  return Deno.build.os === "darwin" ? `${home}/Library/Caches/deno` : `${home}/.cache/deno`;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

async function releaseHostReachable(): Promise<boolean> {
  try {
    const res = await fetch(`${RELEASE_HOST}/release-latest.txt`, {
      method: "HEAD",
      signal: AbortSignal.timeout(5000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Finds where the denort runtime for `target` will come from, before running deno compile. */
export async function findRuntime(target: Target, targetsInBuild: number): Promise<RuntimeSource> {
  const specific = Deno.env.get(targetEnvVar(target));
  const generic = Deno.env.get("DENORT_BIN");
  const variable = specific ? targetEnvVar(target) : "DENORT_BIN";
  const path = specific ?? generic;
  if (path) {
    if (!specific && targetsInBuild > 1 && target !== hostTarget()) {
      return {
        kind: "missing",
        reason: `DENORT_BIN is set but ${target} is not this machine's target; a denort binary ` +
          `only works for its own target. Set ${targetEnvVar(target)} for it, or build one ` +
          `target at a time with --target.`,
      };
    }
    if (!exists(path)) return { kind: "missing", reason: `${variable}=${path} does not exist.` };
    if (/^deno(\.exe)?$/.test(path.split(/[\\/]/).pop() ?? "")) {
      return {
        kind: "missing",
        reason: `${variable}=${path} looks like the deno CLI, not the denort runtime; ` +
          "a binary compiled on top of it does not run anchorfs. Use denort from " +
          `${RELEASE_HOST}/release/v${Deno.version.deno}/denort-${target}.zip.`,
      };
    }
    return { kind: "env", variable, path };
  }
  const cached = `${denoDir()}/dl/release/v${Deno.version.deno}/denort-${target}.zip`;
  if (exists(cached)) return { kind: "cache", path: cached };
  if (await releaseHostReachable()) return { kind: "download" };
  return {
    kind: "missing",
    reason: `the denort runtime for ${target} is not cached and ${RELEASE_HOST} is unreachable ` +
      `from this machine. On a machine with access, download ` +
      `${RELEASE_HOST}/release/v${Deno.version.deno}/denort-${target}.zip, unzip it here and ` +
      `run again with ${targetEnvVar(target)}=/path/to/denort (or DENORT_BIN for a single ` +
      `target). Meanwhile \`deno task bundle\` builds dist/anchorfs.js, which runs anywhere ` +
      `Deno ${Deno.version.deno} is installed.`,
  };
}

/**
 * The flags the server needs at run time; `deno compile` bakes them into the binary. Without V8's
 * code cache: its database's pages, mapped into the process, were 2.7-3.0 MB of an idle server's
 * 63 MB (59.5-60 without); what it saves is compiling the start-up's functions, 30 ms once
 * (tools/list ready 108 → 140 ms after spawn, initialize 31 → 37; issue 26, docs/benchmarks.md).
 * deno.json's tasks and the npm launcher pass it too.
 */
export const RUNTIME_FLAGS = ["-A", "--no-code-cache", `--v8-flags=${V8_FLAGS}`];

/**
 * The `deno compile` arguments for one target: the bundle (not main.ts: the bundle holds only what
 * `main.ts` imports, so no test-only npm package is embedded) and its modules folder.
 * --no-config keeps deno.json's import map, lock file and npm packages out of the binary.
 */
export function compileArgs(target: Target, bundleFile: string, output: string): string[] {
  const dir = bundleFile.slice(0, bundleFile.lastIndexOf("/") + 1);
  return [
    "compile",
    "--no-config",
    ...RUNTIME_FLAGS,
    "--target",
    target,
    "--output",
    output,
    // The whole folder, not what deno compile finds by following imports: the core file's
    // chunks (their import()s name them, but a chunk missed would fail only at its first use),
    // the outline's worker and re2js for the search workers (no import names them: they are
    // loaded by URL), and the wasm files the bundled runtime reads beside its own file.
    "--include",
    `${dir}${MODULES_DIR}`,
    bundleFile,
  ];
}

/** Compiles the bundle for one target. */
async function compile(
  target: Target,
  bundleFile: string,
  output: string,
  runtime: RuntimeSource,
): Promise<boolean> {
  const env: Record<string, string> = {};
  if (runtime.kind === "env") env.DENORT_BIN = runtime.path;
  const cmd = new Deno.Command(Deno.execPath(), {
    args: compileArgs(target, bundleFile, output),
    env,
    stdout: "inherit",
    stderr: "inherit",
  });
  const { code } = await cmd.output();
  return code === 0;
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

class UsageError extends Error {
  constructor(message: string, readonly hint: string) {
    super(message);
  }
}

function parse(args: string[]): { targets: Target[]; out: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        target: { type: "string", multiple: true },
        out: { type: "string", default: "dist" },
      },
    }));
  } catch (e) {
    throw new UsageError(
      parseArgsMessage(e as ParseArgsFailure, false),
      "deno task compile [--target TARGET]... [--out DIR]",
    );
  }
  const requested = values.target ?? [...TARGETS];
  for (const t of requested) {
    if (!(TARGETS as readonly string[]).includes(t)) {
      throw new UsageError(
        `unknown target ${JSON.stringify(t)}`,
        `use one of: ${TARGETS.join(", ")} (e.g. deno task compile --target ${hostTarget()})`,
      );
    }
  }
  return { targets: requested as Target[], out: values.out };
}

function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
}

/**
 * Builds the bundle once, compiles each target from it, prints each binary's size and writes
 * SHA256SUMS (sha256sum's format) for the binaries built. Returns the exit code: 0 all built,
 * 1 some target could not be built, 2 usage error.
 */
export async function main(args: string[]): Promise<number> {
  let options;
  try {
    options = parse(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(`error: ${e.message}\nhint: ${e.hint}`);
    return 2;
  }
  const { targets, out } = options;
  await Deno.mkdir(out, { recursive: true });
  const bundleFile = `${out}/anchorfs.js`;
  await bundle(bundleFile);
  const sums: string[] = [];
  let failures = 0;
  for (const target of targets) {
    const runtime = await findRuntime(target, targets.length);
    if (runtime.kind === "missing") {
      say(`compile ${target}: cannot build: ${runtime.reason}`);
      failures++;
      continue;
    }
    const output = `${out}/${outputName(target)}`;
    if (!(await compile(target, bundleFile, output, runtime))) {
      failures++;
      continue;
    }
    const size = (await Deno.stat(output)).size;
    sums.push(`${await sha256(output)}  ${outputName(target)}`);
    say(`built ${output} (${megabytes(size)})`);
  }
  if (sums.length > 0) {
    await Deno.writeTextFile(`${out}/SHA256SUMS`, sums.join("\n") + "\n");
    say(`wrote ${out}/SHA256SUMS (${sums.length} of ${targets.length} targets)`);
  }
  return failures === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
