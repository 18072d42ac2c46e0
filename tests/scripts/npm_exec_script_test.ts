// The shell script the npm package's postinstall puts in place of its Node launcher
// (packaging/npm/bin/install.cjs), run by sh with paths that need quoting: it execs the runtime
// with the launcher's flags, the bundle and the caller's arguments, each word intact; it honours
// ANCHORFS_DENO and DENO_NO_UPDATE_CHECK; without a runtime that can run, it hands over to the
// launcher with the same arguments (the Node on PATH when the one that installed it is gone).

import { createRequire } from "node:module";
import { assertEquals } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const require = createRequire(import.meta.url);
const { execScript } = require("../../packaging/npm/bin/install.cjs");
const { DENO_FLAGS } = require("../../packaging/npm/bin/anchorfs.cjs");

/** A stand-in executable that prints who it is, its arguments one per line, and the env var. */
async function recorder(path: string, name: string) {
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\necho "${name}"\nfor a in "$@"; do echo "[$a]"; done\necho "check=$DENO_NO_UPDATE_CHECK"\n`,
  );
  await Deno.chmod(path, 0o755);
}

async function runScript(script: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command("/bin/sh", {
    args: [script, ...args],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim().split("\n");
}

Deno.test(
  needing("bash", "posix-fs")(
    "the postinstall's script execs the runtime with the launcher's command line, words intact, and hands over to the launcher without one",
    async () => {
      await using dir = await tempDir();
      // Spaces, a quote, a dollar and a backslash in every path the script names.
      const odd = `${dir.path}/it's a $HOME \\ dir`;
      await Deno.mkdir(odd);
      const deno = `${odd}/deno`;
      const node = `${odd}/node`;
      await recorder(deno, "deno");
      await recorder(node, "node");
      const bundle = `${odd}/anchorfs.js`;
      const launcher = `${odd}/launch.cjs`;
      const script = `${odd}/anchorfs.cjs`;
      await Deno.writeTextFile(
        script,
        execScript({ deno, flags: DENO_FLAGS, bundle, node, launcher }),
      );
      const args = ["mcp", "--path", "a b", "$x", "'q'", ""];
      const words = args.map((a) => `[${a}]`);
      assertEquals(await runScript(script, args), [
        "deno",
        ...DENO_FLAGS.map((f: string) => `[${f}]`),
        `[${bundle}]`,
        ...words,
        "check=1",
      ]);
      // The caller's DENO_NO_UPDATE_CHECK wins, as with the launcher.
      assertEquals(
        (await runScript(script, ["x"], { DENO_NO_UPDATE_CHECK: "0" })).at(-1),
        "check=0",
      );
      // ANCHORFS_DENO names another runtime.
      const other = `${dir.path}/other-deno`;
      await recorder(other, "other");
      assertEquals((await runScript(script, ["x"], { ANCHORFS_DENO: other }))[0], "other");
      // No runtime that can run: the launcher gets the same arguments.
      const cases: Record<string, string>[] = [{ ANCHORFS_DENO: `${dir.path}/missing` }, {}];
      for (const env of cases) {
        if (Object.keys(env).length === 0) await Deno.remove(deno);
        assertEquals(await runScript(script, args, env), [
          "node",
          `[${launcher}]`,
          ...words,
          "check=1",
        ]);
      }
      // The Node that ran the install gone too (nvm switched): the one on PATH.
      await Deno.remove(node);
      await Deno.mkdir(`${dir.path}/bin`);
      await recorder(`${dir.path}/bin/node`, "node on PATH");
      assertEquals(
        (await runScript(script, ["x"], { PATH: `${dir.path}/bin` }))[0],
        "node on PATH",
      );
    },
  ),
);
