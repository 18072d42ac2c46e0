// Protocol test of the shell policy: refused command lines come back from the real server as an
// isError result carrying the policy's message, and nothing in them ran (each starts with a
// `touch` that would leave a file behind).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir } from "../_harness.ts";
import { judgeCommand } from "../../lib/core/shell/policy/mod.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

const REFUSED: [string, string][] = [
  ["touch marker && cat x", "read_file"],
  ["touch marker; grep -rn TODO .", "search_text"],
  ["touch marker; ls -la", "list_files"],
  ["touch marker && sed -i 's/a/b/' notes.txt", "edit_in_place"],
  ["touch marker; sleep 5", "bare_sleep"],
  ["touch marker; tail -f notes.txt", "never_ends"],
  [
    "touch marker; ssh -p 2222 -o StrictHostKeyChecking=no box 'cd /x && grep -r TODO .'",
    "search_text",
  ],
  ["touch marker; echo 'unbalanced", "parse_error"],
];

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `shell policy (${kind} client): refused lines return the message and run nothing`,
      async () => {
        await using dir = await tempDir();
        await using state = await tempDir("anchorfs-state-");
        await Deno.writeTextFile(`${dir.path}/notes.txt`, "a\n");
        await using server = await startServer({
          client: kind,
          args: ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "5"],
        });
        for (const [command, rule] of REFUSED) {
          const verdict = judgeCommand(command);
          assert(!verdict.allowed, `the policy should refuse ${JSON.stringify(command)}`);
          assertEquals(verdict.rule, rule);
          const r = await server.call("shell", { command });
          assert(r.isError, `expected isError for ${JSON.stringify(command)}: ${r.text}`);
          assertEquals(r.text, verdict.message);
          assertStringIncludes(r.text, `(rule ${rule})`);
          assertStringIncludes(r.text, "Nothing was run.");
          assertEquals(await exists(`${dir.path}/marker`), false, `${command} ran`);
        }
        assertEquals(await Deno.readTextFile(`${dir.path}/notes.txt`), "a\n");
        const jobs = await server.call("jobs", { action: "list" });
        assertStringIncludes(jobs.text, "No jobs");
      },
    ),
  );

  Deno.test(
    needs(
      `shell policy (${kind} client): allowed lines run, heredoc writes and filters included`,
      async () => {
        await using dir = await tempDir();
        await using state = await tempDir("anchorfs-state-");
        await using server = await startServer({
          client: kind,
          args: ["--path", dir.path, "--state-dir", state.path, "--foreground-window", "10"],
        });
        const write = await server.call("shell", {
          command: "touch marker && cat <<'EOF' > written.txt\ngrep -r this is data\nEOF",
        });
        assertEquals(write.isError, false, write.text);
        assertEquals(await exists(`${dir.path}/marker`), true);
        assertEquals(await Deno.readTextFile(`${dir.path}/written.txt`), "grep -r this is data\n");

        const filter = await server.call("shell", {
          command: "printf 'alpha\\nbeta\\n' | grep bet && echo \"grep x; cat y\"",
        });
        assertEquals(filter.isError, false, filter.text);
        assertStringIncludes(filter.text, "beta");
        assertStringIncludes(filter.text, "grep x; cat y");

        const loop = await server.call("shell", {
          command: "until [ -f marker ]; do sleep 0.1; done && echo ready",
        });
        assertEquals(loop.isError, false, loop.text);
        assertStringIncludes(loop.text, "ready");
      },
    ),
  );
}

Deno.test(
  needs(
    "shell policy (v2 client): the shell call a FILE_TOO_LARGE hint names runs, and a small file's grep stays refused",
    async () => {
      await using dir = await tempDir();
      await using state = await tempDir("anchorfs-state-");
      await Deno.writeTextFile(`${dir.path}/big.log`, "x\n".repeat(1000) + "needle TEXT\n");
      await Deno.writeTextFile(`${dir.path}/small.txt`, "TEXT\n");
      await using server = await startServer({
        client: "v2",
        args: [
          "--path",
          dir.path,
          "--state-dir",
          state.path,
          "--foreground-window",
          "20",
          "--max-file-bytes",
          "1K",
        ],
      });
      const view = await server.call("view", { path: "big.log" });
      assert(view.isError, view.text);
      const call = /shell (\{"command":"grep[^}]*\})/.exec(view.text)?.[1];
      assert(call, `a grep call in the hint: ${view.text}`);
      const grep = await server.call("shell", JSON.parse(call));
      assertEquals(grep.isError, false, grep.text);
      assertStringIncludes(grep.text, "1001:needle TEXT");
      const small = await server.call("shell", { command: "grep -n TEXT small.txt" });
      assert(small.isError, small.text);
      assertStringIncludes(small.text, "(rule search_text)");
    },
  ),
);

Deno.test(
  needs(
    "a find with a test view cannot express runs in one call; the grep refusal says view works on ssh:// hosts",
    async () => {
      await using dir = await tempDir();
      await Deno.mkdir(`${dir.path}/node_modules/x`, { recursive: true });
      await Deno.writeTextFile(`${dir.path}/old.txt`, "old\n");
      await Deno.utime(`${dir.path}/old.txt`, 1_000_000, 1_000_000);
      await Deno.writeTextFile(`${dir.path}/new.txt`, "new\n");
      await Deno.writeTextFile(`${dir.path}/node_modules/x/new.js`, "x\n");
      await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
      const found = await server.call("shell", {
        command: 'find . -newer old.txt -type f -not -path "./node_modules/*"',
      });
      assertEquals(found.isError, false, found.text);
      assertStringIncludes(found.text, "./new.txt");
      assert(!found.text.includes("node_modules/x/new.js"), found.text);
      assert(!found.text.includes("found.txt"), found.text);
      const grep = await server.call("shell", { command: "grep -rn TODO ." });
      assertEquals(grep.isError, true);
      assertStringIncludes(grep.text, 'view {"path": "ssh://devbox/srv/app", "content": "TODO"}');
    },
  ),
);
