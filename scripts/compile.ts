// Builds the release binaries with `deno compile` for every supported target.
// `deno compile` needs the `denort` runtime of each target; Deno downloads it from its release
// host unless DENORT_BIN (or DENORT_BIN_<TARGET>, e.g. DENORT_BIN_AARCH64_APPLE_DARWIN) names a
// local copy. When neither is possible, this script says so clearly instead of failing deep
// inside deno.
//
// Usage: deno run -A scripts/compile.ts [--target TARGET]... [--out DIR]

import { parseArgs } from "node:util";
import { VERSION } from "../lib/version.ts";

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

async function compile(target: Target, outDir: string, runtime: RuntimeSource): Promise<boolean> {
  const env: Record<string, string> = {};
  if (runtime.kind === "env") env.DENORT_BIN = runtime.path;
  const output = `${outDir}/${outputName(target)}`;
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["compile", "--frozen", "-A", "--target", target, "--output", output, "main.ts"],
    cwd: new URL("..", import.meta.url).pathname,
    env,
    stdout: "inherit",
    stderr: "inherit",
  });
  const { code } = await cmd.output();
  return code === 0;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      target: { type: "string", multiple: true },
      out: { type: "string", default: "dist" },
    },
  });
  const requested = values.target ?? [...TARGETS];
  for (const t of requested) {
    if (!(TARGETS as readonly string[]).includes(t)) {
      throw new Error(`unknown target ${JSON.stringify(t)}; known targets: ${TARGETS.join(", ")}`);
    }
  }
  await Deno.mkdir(values.out, { recursive: true });
  let failures = 0;
  for (const target of requested as Target[]) {
    const runtime = await findRuntime(target, requested.length);
    if (runtime.kind === "missing") {
      Deno.stderr.writeSync(
        new TextEncoder().encode(`compile ${target}: cannot build: ${runtime.reason}\n`),
      );
      failures++;
      continue;
    }
    if (!(await compile(target, values.out, runtime))) failures++;
  }
  return failures === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
