// The server as it ships, for the benches that hold it to issue 26's targets: the bundle of a
// checkout (scripts/release/bundle.ts), which the npm package runs and `deno compile` embeds,
// started the way the npm launcher starts it. A checkout's main.ts run from source (`deno task
// mcp`) holds more: Deno keeps its ~300 modules' sources and emits for the life of the process
// (idle 76–81 MB against 60–62, peaks +17 MB; docs/benchmarks.md, issue 26, twelfth round), so a
// bench that ran it measured the developer's path, not the one users install.

import { RUNTIME_FLAGS } from "../release/compile.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const built = new Map<string, Promise<string>>();

/**
 * The bundle of `checkout` (default: this one), built once per process into a scratch folder;
 * its entry file's path. Throws with the bundler's output when the build fails.
 */
export function shippedBundle(checkout = REPO): Promise<string> {
  let bundle = built.get(checkout);
  if (!bundle) {
    bundle = build(checkout);
    built.set(checkout, bundle);
  }
  return bundle;
}

async function build(checkout: string): Promise<string> {
  const out = `${await Deno.makeTempDir({ prefix: "anchorfs-bench-bundle-" })}/anchorfs.js`;
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--config=${checkout}/deno.json`,
      "scripts/release/bundle.ts",
      "--out",
      out,
    ],
    cwd: checkout,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) {
    const text = new TextDecoder().decode(run.stderr) + new TextDecoder().decode(run.stdout);
    throw new Error(`bundling ${checkout} failed:\n${text.trim()}`);
  }
  return out;
}

/**
 * `deno run` flags for `main` as its launcher passes them: a bundle as the npm launcher (no
 * deno.json or lock file looked for, the runtime flags), a main.ts as deno.json's tasks.
 */
export function launchFlags(main: string): string[] {
  return main.endsWith(".js") ? ["--no-config", "--no-lock", ...RUNTIME_FLAGS] : RUNTIME_FLAGS;
}

/** "the bundle of this checkout (…/anchorfs.js)" and the like, for a bench's header line. */
export function describeServer(main: string, fromSource: boolean): string {
  return fromSource
    ? `${main} run from source, as \`deno task mcp\` runs it`
    : `the shipped bundle (${main}), run as the npm launcher runs it`;
}
