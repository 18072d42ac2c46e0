// The npm package's postinstall, on Linux and macOS: makes the installed `anchorfs` command a shell
// script that execs the Deno binary of the `deno` dependency with the launcher's flags, so the
// server is the process its MCP client started (signals and exit codes are its own) and no Node
// process waits beside it for its whole life (the launcher held 42 MB of RSS next to a 61 MB idle
// server, docs/benchmarks.md). The Node launcher (anchorfs.cjs) is kept as launch.cjs: the script
// hands over to it when the Deno binary is gone or ANCHORFS_DENO names one that is not
// executable, and it prints what to do. On Windows, or where Deno is not found now, or with
// install scripts disabled, nothing changes and the Node launcher runs as before. It never fails
// the install: anything unexpected leaves the launcher in place.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** A word for sh, in single quotes (a quote inside closes, escapes and reopens). */
function shQuote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The script that replaces the launcher: the same command line, run by exec. */
function execScript({ deno, flags, bundle, node, launcher }) {
  return [
    "#!/bin/sh",
    "# anchorfs, as its npm postinstall (install.cjs) wrote it: the server runs as this process.",
    "# launch.cjs beside it is the Node launcher this replaced; it takes over without the runtime.",
    ': "${DENO_NO_UPDATE_CHECK:=1}"',
    "export DENO_NO_UPDATE_CHECK",
    'deno="${ANCHORFS_DENO:-}"',
    `[ -n "$deno" ] || deno=${shQuote(deno)}`,
    // The Node that ran the install, or the one on PATH once that is gone (nvm switched).
    `node=${shQuote(node)}`,
    '[ -x "$node" ] || node=node',
    `[ -x "$deno" ] || exec "$node" ${shQuote(launcher)} "$@"`,
    `exec "$deno" ${flags.map(shQuote).join(" ")} ${shQuote(bundle)} "$@"`,
    "",
  ].join("\n");
}

function install() {
  if (process.platform === "win32") return;
  const here = __dirname;
  const bin = path.join(here, "anchorfs.cjs");
  const launcher = path.join(here, "launch.cjs");
  const text = fs.readFileSync(bin, "utf8");
  // Already a script (a second postinstall, `npm rebuild`): its launcher is launch.cjs.
  const source = text.startsWith("#!/bin/sh") ? launcher : bin;
  const { DENO_FLAGS, BUNDLE, findDeno } = require(source);
  const deno = findDeno();
  if (!deno) return;
  fs.accessSync(deno, fs.constants.X_OK);
  if (source === bin) fs.copyFileSync(bin, launcher);
  const script = execScript({
    deno,
    flags: DENO_FLAGS,
    bundle: BUNDLE,
    node: process.execPath,
    launcher,
  });
  // A new file moved over the old: a command starting meanwhile runs one or the other, whole.
  const temp = `${bin}.${process.pid}.tmp`;
  fs.writeFileSync(temp, script, { mode: 0o755 });
  fs.renameSync(temp, bin);
}

module.exports = { execScript, shQuote };

if (require.main === module) {
  try {
    install();
  } catch {
    // The launcher stays as it was: the command works, with Node beside the server.
  }
}
