#!/usr/bin/env node
// The `anchorfs` command of the npm package: runs the bundled server (../anchorfs.js) with the
// Deno binary that the pinned `deno` npm dependency installed. It adds the runtime flags the server
// needs, keeps stdio inherited (stdout is the MCP channel), forwards signals to the server and
// exits with its exit code. It must not print anything on stdout. On Linux and macOS the package's
// postinstall (install.cjs) keeps this file as launch.cjs and puts in its place a shell script that
// execs Deno itself, so no Node process sits beside the server for its life (42 MB of RSS); this
// launcher stays the way on Windows, with scripts ignored, and the script's fallback.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

// -A: the server reads and writes files, runs shells and opens ssh connections by design.
// The V8 flags turn on V8's linear-time regexp engine and the fallback to it: search regexes are
// linear without them (re2js), and faster with them (lib/core/search/linear_regex.ts); the semi-space
// cap bounds each isolate's young generation (search workers' memory; scripts/release/compile.ts V8_FLAGS
// is the same list and says why).
// --no-config: a deno.json or lock file in the user's directory must not change the server.
// --no-code-cache: the cache's mapped pages were 3 of an idle server's 63 MB, for 30 ms saved once
// at start (scripts/release/compile.ts RUNTIME_FLAGS says more).
const DENO_FLAGS = [
  "run",
  "-A",
  "--no-config",
  "--no-lock",
  "--no-code-cache",
  "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks,--enable-experimental-regexp-engine,--max-semi-space-size=2,--expose-gc,--no-memory-pool-share-memory-on-teardown",
];

/** The deno executable: the `deno` package's copy, or the per-platform package it came from. */
function findDeno() {
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  const candidates = [];
  try {
    candidates.push(path.join(path.dirname(require.resolve("deno/package.json")), exe));
  } catch { /* not installed: reported below */ }
  const arch = process.arch;
  const platform = process.platform === "linux"
    ? `linux-${arch}-glibc`
    : `${process.platform}-${arch}`;
  try {
    candidates.push(
      path.join(path.dirname(require.resolve(`@deno/${platform}/package.json`)), exe),
    );
  } catch { /* optional dependency for another platform */ }
  return candidates.find((c) => fs.existsSync(c));
}

/** The bundled server beside this folder. */
const BUNDLE = path.join(__dirname, "..", "anchorfs.js");

/** Runs the server as a child and follows it (signals in, exit code and signal out). */
function main() {
  const deno = process.env.ANCHORFS_DENO || findDeno();
  if (!deno) {
    process.stderr.write(
      `error: anchorfs could not find the Deno runtime of its \`deno\` dependency ` +
        `(${process.platform}-${process.arch}).\n` +
        `hint: reinstall with optional dependencies enabled (\`npm install -g anchorfs\` ` +
        `without --omit=optional), or set ANCHORFS_DENO=/path/to/deno\n`,
    );
    process.exit(3);
  }

  const child = spawn(deno, [...DENO_FLAGS, BUNDLE, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { DENO_NO_UPDATE_CHECK: "1", ...process.env },
    windowsHide: true,
  });

  // Signals sent to the launcher go to the server, which ends its jobs before exiting.
  const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }

  child.on("error", (err) => {
    process.stderr.write(`error: anchorfs could not start ${deno}: ${err.message}\n`);
    process.exit(3);
  });

  child.on("exit", (code, signal) => {
    if (signal) {
      // Die of the same signal so the caller sees what the server saw.
      for (const s of SIGNALS) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setTimeout(
        () => process.exit(128 + (require("node:os").constants.signals[signal] ?? 0)),
        100,
      );
      return;
    }
    process.exit(code ?? 1);
  });
}

module.exports = { DENO_FLAGS, BUNDLE, findDeno };

if (require.main === module) main();
