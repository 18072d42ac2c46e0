// The whole tool set on ssh:// paths through the real stdio server (both SDK clients), against
// a private sshd: view (file, listing with .gitignore, search), text_editor str_replace and
// undo, batch_edit with a stale-id report, extract_lines local → remote, and a remote session
// root (`anchorfs mcp --path ssh://box/dir`) with relative paths. The shell stays local.

import { renderLine } from "../../../lib/core/edit/line_id.ts";
import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../../_assert.ts";
import { CLIENT_KINDS, runCliProcess, startServer, tempDir, writeTree } from "../../_harness.ts";
import { createSshWorld } from "./_sshd.ts";
import { needing } from "../../_requires.ts";

const sshTest = needing("sshd", "posix-fs");

function idIn(text: string, content: string): string {
  for (const l of text.split("\n")) {
    const m = /^[ +]?([0-9]+:[0-9a-f]{2})\|(.*)$/.exec(l);
    if (m && m[2] === content) return m[1]!;
  }
  throw new Error(`no line ${JSON.stringify(content)} with an id in:\n${text}`);
}

const FIXTURE = {
  ".gitignore": "dist/\n*.log\n",
  "src/app.ts": "import x from './x';\nexport function parseConfig() {\n  return 1;\n}\n",
  "src/util.ts": "// TODO: parseConfig caching\nexport const u = 1;\n",
  "dist/app.js": "parseConfig\n",
  "debug.log": "parseConfig\n",
};

async function remoteWorld() {
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  });
  // An agent from the developer's environment must not take part.
  return { world, env: world.env({ SSH_AUTH_SOCK: "" }) };
}

for (const kind of CLIENT_KINDS) {
  Deno.test(sshTest(
    `remote files (${kind} client): view, str_replace, batch_edit, extract_lines and undo on ssh:// paths`,
    async () => {
      const { world, env } = await remoteWorld();
      await using _world = world;
      await using remote = await tempDir("anchorfs-remote-");
      await using local = await tempDir("anchorfs-local-");
      await writeTree(remote.path, FIXTURE);
      await writeTree(local.path, { "snippet.ts": "a\nfunction shared() {\n  return 42;\n}\nz\n" });
      const url = (rel: string) => `ssh://box${remote.path}/${rel}`;
      await using server = await startServer({ client: kind, args: ["--path", local.path], env });

      const file = await server.call("view", { path: url("src/app.ts") });
      assertEquals(file.isError, false, file.text);
      assert(file.text.startsWith(`${renderLine(1, "import x from './x';")}\n`), file.text);

      const listing = await server.call("view", { path: `ssh://box${remote.path}` });
      assertEquals(listing.isError, false, listing.text);
      assertStringIncludes(listing.text, "src/app.ts");
      assertNotIncludes(listing.text, "dist/app.js");
      assertNotIncludes(listing.text, "debug.log");

      const search = await server.call("view", {
        path: `ssh://box${remote.path}`,
        content: "parseConfig",
      });
      assertEquals(search.isError, false, search.text);
      assertStringIncludes(search.text, `${renderLine(2, "export function parseConfig() {")}`);
      assertStringIncludes(search.text, "src/util.ts (line 1)");
      assertNotIncludes(search.text, "dist/");

      const replaced = await server.call("text_editor", {
        command: "str_replace",
        path: url("src/app.ts"),
        old_text: "  return 1;",
        new_text: "  return 2;",
      });
      assertEquals(replaced.isError, false, replaced.text);
      assertEquals(
        await Deno.readTextFile(`${remote.path}/src/app.ts`),
        "import x from './x';\nexport function parseConfig() {\n  return 2;\n}\n",
      );

      // Someone else changes the file on the remote host: the old ids are stale.
      const shown = await server.call("view", { path: url("src/util.ts") });
      await Deno.writeTextFile(
        `${remote.path}/src/util.ts`,
        "// moved\n// TODO: parseConfig caching\nexport const u = 1;\n",
      );
      const stale = await server.call("batch_edit", {
        path: url("src/util.ts"),
        operations: [{
          op: "replace",
          start: idIn(shown.text, "export const u = 1;"),
          content: "export const u = 2;",
        }],
      });
      assert(stale.isError, stale.text);
      assertStringIncludes(stale.text, "stale");
      assertStringIncludes(stale.text, renderLine(3, "export const u = 1;"));
      assertEquals(
        await Deno.readTextFile(`${remote.path}/src/util.ts`),
        "// moved\n// TODO: parseConfig caching\nexport const u = 1;\n",
      );
      const fresh = await server.call("batch_edit", {
        path: url("src/util.ts"),
        operations: [{
          op: "replace",
          start: idIn(stale.text, "export const u = 1;"),
          content: "export const u = 2;",
        }],
      });
      assertEquals(fresh.isError, false, fresh.text);
      assertStringIncludes(
        await Deno.readTextFile(`${remote.path}/src/util.ts`),
        "export const u = 2;",
      );

      // Local → remote copy of a verified range.
      const snippet = await server.call("view", { path: "snippet.ts" });
      const copied = await server.call("extract_lines", {
        from_path: "snippet.ts",
        start: idIn(snippet.text, "function shared() {"),
        end: idIn(snippet.text, "}"),
        to_path: url("lib/shared.ts"),
        position: -1,
      });
      assertEquals(copied.isError, false, copied.text);
      assertEquals(
        await Deno.readTextFile(`${remote.path}/lib/shared.ts`),
        "function shared() {\n  return 42;\n}\n",
      );

      // Undo restores the remote file; the write kept its mode.
      await Deno.chmod(`${remote.path}/src/app.ts`, 0o640);
      await server.call("text_editor", {
        command: "str_replace",
        path: url("src/app.ts"),
        old_text: "  return 2;",
        new_text: "  return 3;",
      });
      assertEquals((await Deno.stat(`${remote.path}/src/app.ts`)).mode! & 0o777, 0o640);
      const undo = await server.call("text_editor", {
        command: "undo_edit",
        path: url("src/app.ts"),
      });
      assertEquals(undo.isError, false, undo.text);
      assertStringIncludes(await Deno.readTextFile(`${remote.path}/src/app.ts`), "  return 2;");

      // A remote symlink's delete removes the link, and undo puts the same link back.
      await Deno.symlink("src/app.ts", `${remote.path}/app-link.ts`);
      const unlinked = await server.call("text_editor", {
        command: "delete",
        path: url("app-link.ts"),
      });
      assertEquals(unlinked.isError, false, unlinked.text);
      assertStringIncludes(unlinked.text, 'a symlink to "src/app.ts"');
      const relinked = await server.call("text_editor", {
        command: "undo_edit",
        path: url("app-link.ts"),
      });
      assertEquals(relinked.isError, false, relinked.text);
      assertEquals(await Deno.readLink(`${remote.path}/app-link.ts`), "src/app.ts");
      await Deno.remove(`${remote.path}/app-link.ts`);

      // workdir can move the session onto the remote host and back.
      const set = await server.call("workdir", {
        action: "set",
        path: `ssh://box${remote.path}/src`,
      });
      assertEquals(set.isError, false, set.text);
      const relative = await server.call("view", { path: "util.ts" });
      assertStringIncludes(relative.text, "export const u = 2;");
      await server.call("workdir", { action: "reset" });
      assertStringIncludes(
        // full: this session viewed snippet.ts whole before (a plain re-view says "unchanged").
        (await server.call("view", { path: "snippet.ts", full: true })).text,
        "function shared",
      );

      // No temporary files left on the remote side.
      const names = [...Deno.readDirSync(`${remote.path}/src`)].map((e) => e.name).sort();
      assertEquals(names, ["app.ts", "util.ts"]);
    },
  ));

  Deno.test(sshTest(
    `remote session root (${kind} client): --path ssh://box/dir makes relative paths remote`,
    async () => {
      const { world, env } = await remoteWorld();
      await using _world = world;
      await using remote = await tempDir("anchorfs-remote-");
      await writeTree(remote.path, FIXTURE);
      await using server = await startServer({
        client: kind,
        args: ["--path", `ssh://box${remote.path}`],
        env,
      });
      const listing = await server.call("view", { path: "." });
      assertEquals(listing.isError, false, listing.text);
      assertStringIncludes(listing.text, "src/app.ts");
      const file = await server.call("view", { path: "src/util.ts" });
      assert(file.text.startsWith(renderLine(1, "// TODO: parseConfig caching")), file.text);
      const created = await server.call("text_editor", {
        command: "create",
        path: "notes/new.md",
        file_text: "hello\n",
      });
      assertEquals(created.isError, false, created.text);
      assertEquals(await Deno.readTextFile(`${remote.path}/notes/new.md`), "hello\n");
      const missing = await server.call("view", { path: "src/gone.ts" });
      assert(missing.isError);
      assertStringIncludes(missing.text, `ssh://box${remote.path}/src`);
      const wd = await server.call("workdir", {});
      assertStringIncludes(wd.text, `ssh://box${remote.path}`);
    },
  ));
}

Deno.test(sshTest(
  "anchorfs mcp --path ssh:// to an unknown alias fails with the SSH error and exits",
  async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await world.writeConfig("Host box\n  HostName 127.0.0.1\n  Port 1\n");
    const r = await runCliProcess(["mcp", "--path", "ssh://box/tmp", "--ssh-timeout", "5"], {
      env: { ...env, PATH: Deno.env.get("PATH") ?? "" },
    });
    assertEquals(r.code, 1, r.stderr);
    assertStringIncludes(r.stderr, 'Cannot connect to "box"');
    assertStringIncludes(r.stderr, "nothing listens on port 1");
  },
));

Deno.test(sshTest("the CLI's view and edit accept ssh:// paths", async () => {
  const { world, env } = await remoteWorld();
  await using _world = world;
  await using remote = await tempDir("anchorfs-remote-");
  await writeTree(remote.path, FIXTURE);
  const cliEnv = { ...env, PATH: Deno.env.get("PATH") ?? "" };
  const viewed = await runCliProcess(["view", `ssh://box${remote.path}/src/app.ts`], {
    env: cliEnv,
  });
  assertEquals(viewed.code, 0, viewed.stderr);
  assertStringIncludes(viewed.stdout, renderLine(3, "  return 1;"));
  const edited = await runCliProcess(
    ["edit", `ssh://box${remote.path}/src/app.ts`, "--old", "return 1;", "--new", "return 9;"],
    { env: cliEnv },
  );
  assertEquals(edited.code, 0, edited.stderr);
  assertStringIncludes(await Deno.readTextFile(`${remote.path}/src/app.ts`), "  return 9;");
}));

Deno.test(
  sshTest("the server exits when stdin closes and its SSH connections close with it", async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-remote-");
    const r = await runCliProcess(["mcp", "--path", `ssh://box${remote.path}`], {
      env: { ...env, PATH: Deno.env.get("PATH") ?? "" },
      stdin: "",
    });
    assertEquals(r.code, 0, r.stderr);
    // The session root was reached (host key recorded) and no sshd session outlives the server.
    assertStringIncludes(await Deno.readTextFile(`${world.home}/.ssh/known_hosts`), "[127.0.0.1]:");
    let sessions = await world.sshd.sessionCount();
    for (let i = 0; i < 50 && sessions !== 0; i++) {
      await new Promise((res) => setTimeout(res, 50));
      sessions = await world.sshd.sessionCount();
    }
    assertEquals(sessions, 0, "an sshd session process outlived the server");
  }),
);

Deno.test(sshTest(
  "errors from the remote host name it: a create under a remote file says ssh://box/…",
  async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-remote-");
    await using local = await tempDir("anchorfs-local-");
    await writeTree(remote.path, { "a.txt": "x\n" });
    await using server = await startServer({ client: "v1", args: ["--path", local.path], env });
    for (const bad of ["a.txt/sub/new.txt", "a.txt/new.txt"]) {
      const r = await server.call("text_editor", {
        command: "create",
        path: `ssh://box${remote.path}/${bad}`,
        file_text: "y\n",
      });
      assert(r.isError, r.text);
      assertStringIncludes(r.text, `"ssh://box${remote.path}/a.txt`);
      assertNotIncludes(r.text, `"${remote.path}/a.txt`);
    }
  },
));

Deno.test(
  sshTest("a remote edit through a symlink changes the target and keeps the link", async () => {
    const { world, env } = await remoteWorld();
    await using _world = world;
    await using remote = await tempDir("anchorfs-remote-");
    await writeTree(remote.path, FIXTURE);
    await Deno.symlink("src/app.ts", `${remote.path}/app_link.ts`);
    await Deno.symlink("missing.ts", `${remote.path}/dangling.ts`);
    const cliEnv = { ...env, PATH: Deno.env.get("PATH") ?? "" };
    const edited = await runCliProcess(
      ["edit", `ssh://box${remote.path}/app_link.ts`, "--old", "return 1;", "--new", "return 7;"],
      { env: cliEnv },
    );
    assertEquals(edited.code, 0, edited.stderr);
    assertStringIncludes(edited.stdout, "(via symlink to");
    assert((await Deno.lstat(`${remote.path}/app_link.ts`)).isSymlink);
    assertStringIncludes(await Deno.readTextFile(`${remote.path}/src/app.ts`), "  return 7;");
    const dangling = await runCliProcess(
      ["edit", `ssh://box${remote.path}/dangling.ts`, "--old", "a", "--new", "b"],
      { env: cliEnv },
    );
    assertEquals(dangling.code, 1, dangling.stdout);
    assertStringIncludes(
      dangling.stderr,
      "does not write through a symlink whose target is missing",
    );
    assert((await Deno.lstat(`${remote.path}/dangling.ts`)).isSymlink);
  }),
);
