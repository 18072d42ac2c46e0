// Confinement through the real server: one table of attempts to reach files outside the project
// (absolute paths, `..`, symlinked files and directories, a symlinked parent of a new file,
// workdir, extract_lines both ways, multi-root search, edits, delete, undo, ssh://), each refused
// with `--allow` and each allowed without it. Plus --no-shell, the start-up warning, the shell
// description and --roots with a client that offers roots and changes them.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import {
  CLIENT_KINDS,
  type ClientKind,
  MAIN_TS,
  REPO_ROOT,
  runCliProcess,
  serverEnv,
  startServer,
  tempDir,
  writeTree,
} from "../_harness.ts";
import { createSshWorld } from "../backends/ssh/_sshd.ts";
import { needing } from "../_requires.ts";

const needs = needing("sshd", "posix-fs");
const needsBash = needing("bash");
const needsSshd = needing("sshd", "posix-fs");

const REFUSED = "is outside the directories this server may use";

/**
 * T/proj (the allowed project, with symlinks out), T/projx (a sibling whose name starts with
 * "proj"), T/outside (victims, one per writing attempt), T/remote/{allowed,other} (reached over
 * ssh://box).
 */
async function buildWorld(root: string): Promise<void> {
  const victims: Record<string, string> = {};
  for (let i = 1; i <= 12; i++) victims[`outside/victim${i}.txt`] = `victim ${i}\n`;
  await writeTree(root, {
    "proj/a.txt": "alpha\nbeta\n",
    "proj/sub/b.txt": "bravo\n",
    "projx/c.txt": "SECRET prefix trap\n",
    "outside/secret.txt": "SECRET outside\n",
    "outside/deep/d.txt": "SECRET deep\n",
    ...victims,
    "remote/allowed/r.txt": "remote allowed\n",
    "remote/other/o.txt": "SECRET remote other\n",
  });
  await Deno.symlink("../outside/secret.txt", `${root}/proj/filelink`);
  await Deno.symlink("../outside", `${root}/proj/dirlink`);
  await Deno.symlink("../outside/victim2.txt", `${root}/proj/victimlink`);
  await Deno.symlink("../other", `${root}/remote/allowed/rlink`);
  await Deno.symlink("../outside/not-there.txt", `${root}/proj/dangling`);
  // A symlink whose name is not UTF-8 (reached through the quoted form "odd\xfflink").
  const made = await new Deno.Command("bash", {
    args: ["-c", 'ln -s ../outside "$1/proj/$(printf "odd\\377link")"', "ln", root],
  }).output();
  if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
}

interface Attempt {
  name: string;
  tool: string;
  args: (t: string) => Record<string, unknown>;
  /** Calls made first in the unconfined run (e.g. an edit before its undo). */
  setup?: (t: string) => [string, Record<string, unknown>][];
  /** A file outside whose content must be untouched when refused and changed when allowed. */
  victim?: (t: string) => { path: string; before: string | null };
}

const id1 = (content: string) => formatLineId(1, content);

const ATTEMPTS: Attempt[] = [
  { name: "absolute path", tool: "view", args: (t) => ({ path: `${t}/outside/secret.txt` }) },
  { name: "absolute /etc/passwd", tool: "view", args: () => ({ path: "/etc/passwd" }) },
  { name: "relative ..", tool: "view", args: () => ({ path: "../outside/secret.txt" }) },
  { name: "down then up", tool: "view", args: () => ({ path: "sub/../../outside/secret.txt" }) },
  { name: "climb to /etc", tool: "view", args: () => ({ path: "../../../../../../etc/passwd" }) },
  { name: "prefix sibling", tool: "view", args: () => ({ path: "../projx/c.txt" }) },
  { name: "symlinked file", tool: "view", args: () => ({ path: "filelink" }) },
  { name: "symlinked dir listing", tool: "view", args: () => ({ path: "dirlink" }) },
  { name: "file in symlinked dir", tool: "view", args: () => ({ path: "dirlink/secret.txt" }) },
  {
    name: "search in symlinked dir",
    tool: "view",
    args: () => ({ path: "dirlink", content: "SECRET" }),
  },
  {
    name: "multi-root search, one root outside",
    tool: "view",
    args: (t) => ({ path: `sub|${t}/outside`, content: "SECRET" }),
  },
  {
    name: "search a symlinked file",
    tool: "view",
    args: () => ({ path: "filelink", content: "SECRET" }),
  },
  { name: "listing outside", tool: "view", args: () => ({ path: "../outside" }) },
  {
    name: "file through a symlink named with a non-UTF-8 byte",
    tool: "view",
    args: () => ({ path: '"odd\\xfflink/secret.txt"' }),
  },
  {
    name: "create through a symlink named with a non-UTF-8 byte",
    tool: "text_editor",
    args: () => ({ command: "create", path: '"odd\\xfflink/new5.txt"', file_text: "x\n" }),
    victim: (t) => ({ path: `${t}/outside/new5.txt`, before: null }),
  },
  {
    name: "create outside",
    tool: "text_editor",
    args: () => ({ command: "create", path: "../outside/new1.txt", file_text: "x\n" }),
    victim: (t) => ({ path: `${t}/outside/new1.txt`, before: null }),
  },
  {
    name: "create under a symlinked parent",
    tool: "text_editor",
    args: () => ({ command: "create", path: "dirlink/new2.txt", file_text: "x\n" }),
    victim: (t) => ({ path: `${t}/outside/new2.txt`, before: null }),
  },
  {
    name: "create with mkdirp through a symlink",
    tool: "text_editor",
    args: () => ({ command: "create", path: "dirlink/made/new3.txt", file_text: "x\n" }),
    victim: (t) => ({ path: `${t}/outside/made/new3.txt`, before: null }),
  },
  {
    name: "str_replace outside",
    tool: "text_editor",
    args: () => ({
      command: "str_replace",
      path: "../outside/victim1.txt",
      old_text: "victim 1",
      new_text: "owned",
    }),
    victim: (t) => ({ path: `${t}/outside/victim1.txt`, before: "victim 1\n" }),
  },
  {
    name: "str_replace through a symlinked file",
    tool: "text_editor",
    args: () => ({
      command: "str_replace",
      path: "victimlink",
      old_text: "victim 2",
      new_text: "owned",
    }),
    // No victim check: without --allow, an edit through a file symlink replaces the link with a
    // regular file in the project (the atomic rename), so the target stays as it was either way.
  },
  {
    name: "delete outside",
    tool: "text_editor",
    args: (t) => ({ command: "delete", path: `${t}/outside/victim3.txt` }),
    victim: (t) => ({ path: `${t}/outside/victim3.txt`, before: "victim 3\n" }),
  },
  {
    name: "delete through a symlinked dir",
    tool: "text_editor",
    args: () => ({ command: "delete", path: "dirlink/victim4.txt" }),
    victim: (t) => ({ path: `${t}/outside/victim4.txt`, before: "victim 4\n" }),
  },
  {
    name: "undo_edit outside",
    tool: "text_editor",
    setup: () => [["text_editor", {
      command: "str_replace",
      path: "../outside/victim5.txt",
      old_text: "victim 5",
      new_text: "edited",
    }]],
    args: () => ({ command: "undo_edit", path: "../outside/victim5.txt" }),
  },
  {
    name: "batch_edit outside",
    tool: "batch_edit",
    setup: () => [["view", { path: "../outside/victim6.txt" }]],
    args: () => ({
      path: "../outside/victim6.txt",
      operations: [{ op: "replace", start: id1("victim 6"), content: "owned" }],
    }),
    victim: (t) => ({ path: `${t}/outside/victim6.txt`, before: "victim 6\n" }),
  },
  {
    name: "batch_edit through a symlinked dir",
    tool: "batch_edit",
    setup: () => [["view", { path: "dirlink/victim7.txt" }]],
    args: () => ({
      path: "dirlink/victim7.txt",
      operations: [{ op: "replace", start: id1("victim 7"), content: "owned" }],
    }),
    victim: (t) => ({ path: `${t}/outside/victim7.txt`, before: "victim 7\n" }),
  },
  {
    name: "extract_lines from outside into the project",
    tool: "extract_lines",
    args: (t) => ({
      from_path: `${t}/outside/secret.txt`,
      start: 1,
      to_path: "copy1.txt",
      position: 0,
    }),
  },
  {
    name: "extract_lines from a symlinked file",
    tool: "extract_lines",
    args: () => ({ from_path: "filelink", start: 1, to_path: "copy2.txt", position: 0 }),
  },
  {
    name: "extract_lines from the project to outside",
    tool: "extract_lines",
    args: () => ({ from_path: "a.txt", start: 1, to_path: "../outside/copy3.txt", position: 0 }),
    victim: (t) => ({ path: `${t}/outside/copy3.txt`, before: null }),
  },
  {
    name: "extract_lines into a symlinked dir",
    tool: "extract_lines",
    args: () => ({ from_path: "a.txt", start: 1, to_path: "dirlink/copy4.txt", position: 0 }),
    victim: (t) => ({ path: `${t}/outside/copy4.txt`, before: null }),
  },
  { name: "workdir /", tool: "workdir", args: () => ({ action: "set", path: "/" }) },
  {
    name: "workdir ..",
    tool: "workdir",
    args: () => ({ action: "set", path: "../outside" }),
  },
  {
    name: "workdir into a symlinked dir",
    tool: "workdir",
    args: () => ({ action: "set", path: "dirlink" }),
  },
  {
    name: "ssh: file in another remote tree",
    tool: "view",
    args: (t) => ({ path: `ssh://box${t}/remote/other/o.txt` }),
  },
  {
    name: "ssh: .. out of the allowed remote tree",
    tool: "view",
    args: (t) => ({ path: `ssh://box${t}/remote/allowed/../other/o.txt` }),
  },
  {
    name: "ssh: remote symlinked dir",
    tool: "view",
    args: (t) => ({ path: `ssh://box${t}/remote/allowed/rlink` }),
  },
  {
    name: "ssh: create in another remote tree",
    tool: "text_editor",
    args: (t) => ({
      command: "create",
      path: `ssh://box${t}/remote/other/new.txt`,
      file_text: "x\n",
    }),
    victim: (t) => ({ path: `${t}/remote/other/new.txt`, before: null }),
  },
  {
    name: "ssh: multi-root search, one remote root outside",
    tool: "view",
    args: (t) => ({
      path: `ssh://box${t}/remote/allowed|ssh://box${t}/remote/other`,
      content: "SECRET",
    }),
  },
  {
    name: "ssh: the allowed remote tree's path on local disk",
    tool: "view",
    args: (t) => ({ path: `${t}/remote/allowed/r.txt` }),
  },
];

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

async function sshSetup() {
  const world = await createSshWorld({
    config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  });
  return { world, env: world.env({ SSH_AUTH_SOCK: "" }) };
}

for (const confined of [true, false]) {
  Deno.test(needsSshd(
    `confinement table: ${ATTEMPTS.length} attempts are all ${
      confined ? "refused with --allow" : "allowed without --allow"
    }`,
    async () => {
      assert(ATTEMPTS.length >= 30);
      const { world, env } = await sshSetup();
      await using _world = world;
      await using dir = await tempDir("anchorfs-confine-");
      const t = dir.path;
      await buildWorld(t);
      const args = ["--path", `${t}/proj`];
      if (confined) args.push("--allow", `${t}/proj`, "--allow", `ssh://box${t}/remote/allowed`);
      await using server = await startServer({ client: "v1", args, env });
      const failures: string[] = [];
      for (const attempt of ATTEMPTS) {
        if (!confined) {
          for (const [tool, setupArgs] of attempt.setup?.(t) ?? []) {
            const r = await server.call(tool, setupArgs);
            if (r.isError) failures.push(`${attempt.name}: setup ${tool} failed: ${r.text}`);
          }
        }
        const r = await server.call(attempt.tool, attempt.args(t));
        const refused = r.isError && r.text.includes(REFUSED);
        if (confined && !refused) failures.push(`${attempt.name}: not refused: ${r.text}`);
        if (!confined && r.isError) failures.push(`${attempt.name}: failed: ${r.text}`);
        if (confined && r.text.includes("SECRET")) {
          failures.push(`${attempt.name}: leaked content: ${r.text}`);
        }
        const victim = attempt.victim?.(t);
        if (victim) {
          const now = await readOrNull(victim.path);
          if (confined && now !== victim.before) {
            failures.push(`${attempt.name}: ${victim.path} changed to ${JSON.stringify(now)}`);
          }
          if (!confined && now === victim.before) {
            failures.push(`${attempt.name}: ${victim.path} did not change`);
          }
        }
        // A workdir that moved out would make later relative paths mean something else.
        if (attempt.tool === "workdir") await server.call("workdir", { action: "reset" });
      }
      assertEquals(failures, [], failures.join("\n\n"));
    },
  ));
}

Deno.test(
  needs(
    "with --allow, paths inside work, a refusal names the allowed dirs and the resolved path, and listings do not follow links out",
    async () => {
      const { world, env } = await sshSetup();
      await using _world = world;
      await using dir = await tempDir("anchorfs-confine-");
      const t = dir.path;
      await buildWorld(t);
      await using server = await startServer({
        client: "v2",
        args: [
          "--path",
          `${t}/proj`,
          "--allow",
          `${t}/proj`,
          "--allow",
          `ssh://box${t}/remote/allowed`,
        ],
        env,
      });
      for (
        const [tool, args] of [
          ["view", { path: "a.txt" }],
          ["view", { path: `${t}/proj/sub/../a.txt` }],
          ["view", { path: `ssh://box${t}/remote/allowed/r.txt` }],
          ["text_editor", { command: "create", path: "new/deep/n.txt", file_text: "n\n" }],
          ["text_editor", {
            command: "str_replace",
            path: "a.txt",
            old_text: "beta",
            new_text: "b",
          }],
          ["text_editor", { command: "undo_edit", path: "a.txt" }],
          ["extract_lines", { from_path: "a.txt", start: 1, to_path: "sub/copy.txt", position: 0 }],
          ["workdir", { action: "set", path: "sub" }],
          ["workdir", { action: "reset" }],
        ] as const
      ) {
        const r = await server.call(tool, args);
        assertEquals(r.isError, false, `${tool} ${JSON.stringify(args)}: ${r.text}`);
      }
      const refused = await server.call("view", { path: "dirlink/secret.txt" });
      assertEquals(refused.isError, true);
      assertStringIncludes(refused.text, `"${t}/proj/dirlink/secret.txt", which resolves to`);
      assertStringIncludes(refused.text, `"${t}/outside/secret.txt"`);
      assertStringIncludes(refused.text, `"${t}/proj", "ssh://box${t}/remote/allowed"`);
      assertStringIncludes(refused.text, "restart anchorfs with one more --allow");

      // A dangling symlink's target cannot be checked: creating through it is refused. (Without
      // --allow the write itself refuses a path that is a symlink, so it is not in the table.)
      const dangling = await server.call("text_editor", {
        command: "create",
        path: "dangling",
        file_text: "x\n",
      });
      assertStringIncludes(dangling.text, REFUSED);
      assertStringIncludes(dangling.text, "whose target does not exist");

      // The project holds links to outside: the listing names them but never shows what is behind.
      const listing = await server.call("view", { path: ".", include_hidden: true });
      assertEquals(listing.isError, false, listing.text);
      assertNotIncludes(listing.text, "victim");
      assertNotIncludes(listing.text, "secret.txt");
      const search = await server.call("view", { path: ".", content: "SECRET" });
      assertNotIncludes(search.text, "SECRET outside");
      const remote = await server.call("view", { path: `ssh://box${t}/remote/allowed` });
      assertEquals(remote.isError, false, remote.text);
      assertNotIncludes(remote.text, "o.txt");
      // A remote working directory: relative paths are remote and checked there.
      const set = await server.call("workdir", { path: `ssh://box${t}/remote/allowed` });
      assertEquals(set.isError, false, set.text);
      assertEquals((await server.call("view", { path: "r.txt" })).isError, false);
      assertStringIncludes((await server.call("view", { path: "../other/o.txt" })).text, REFUSED);
      assertStringIncludes((await server.call("view", { path: "rlink/o.txt" })).text, REFUSED);
    },
  ),
);

Deno.test("--allow without --path starts in the first allowed dir; a --path outside is refused at start", async () => {
  await using dir = await tempDir("anchorfs-confine-");
  await buildWorld(dir.path);
  await using server = await startServer({
    client: "v1",
    args: ["--allow", `${dir.path}/proj`],
    cwd: dir.path,
  });
  const wd = await server.call("workdir", { action: "get" });
  assertStringIncludes(wd.text, `${dir.path}/proj`);

  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      MAIN_TS,
      "mcp",
      "--path",
      `${dir.path}/outside`,
      "--allow",
      `${dir.path}/proj`,
    ],
    cwd: REPO_ROOT,
    env: serverEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2); // a bad --path is a usage error (docs/errors.md "Exit codes")
  assertStringIncludes(new TextDecoder().decode(out.stderr), "is outside every --allow directory");
});

Deno.test(needsBash(
  "--no-shell removes shell, jobs and job resources; --allow with the shell warns once and says so in its description",
  async () => {
    await using dir = await tempDir("anchorfs-confine-");
    await buildWorld(dir.path);
    const p = `${dir.path}/proj`;
    {
      await using server = await startServer({
        client: "v1",
        args: ["--path", p, "--no-shell", "--max-file-bytes", "10"],
      });
      const names = (await server.client.listTools()).tools.map((x: { name: string }) => x.name);
      assertEquals(names.sort(), ["batch_edit", "extract_lines", "text_editor", "view", "workdir"]);
      assertEquals(server.client.getServerCapabilities()?.resources, undefined);
      assertNotIncludes(server.client.getInstructions() ?? "", "anchorfs://jobs");
      // The SDK answers a call to an unknown tool with a protocol error or an isError result.
      const shell = await server.call("shell", { command: "echo hi" }).catch((e: Error) => ({
        isError: true,
        text: e.message,
      }));
      assertEquals(shell.isError, true);
      assertStringIncludes(shell.text, "shell");
      // Hints that would call the shell or jobs name the command for the user instead.
      await Deno.writeTextFile(`${p}/big.log`, "x\n".repeat(20));
      const big = await server.call("view", { path: "big.log" });
      assertEquals(big.isError, true);
      assertStringIncludes(
        big.text,
        "(a shell command for the user to run: this server was started",
      );
      assertNotIncludes(big.text, "shell {");
      const job = await server.call("view", { path: "anchorfs://jobs/1-1" });
      assertNotIncludes(job.text, "jobs {");
    }
    {
      await using server = await startServer({ client: "v2", args: ["--path", p, "--no-shell"] });
      const names = (await server.client.listTools()).tools.map((x: { name: string }) => x.name);
      assert(!names.includes("shell") && !names.includes("jobs"), names.join(","));
    }
    {
      await using server = await startServer({ client: "v1", args: ["--path", p, "--allow", p] });
      const tools = (await server.client.listTools()).tools as {
        name: string;
        description: string;
      }[];
      const shell = tools.find((x) => x.name === "shell")!;
      assertStringIncludes(shell.description, "NOT CONFINED");
      assertStringIncludes(
        server.client.getInstructions() ?? "",
        `File tools may only use paths inside "${p}"`,
      );
      await server.close();
      const warnings = server.stderr().split("\n").filter((l) => l.includes("warning:"));
      assertEquals(warnings.length, 1, server.stderr());
      assertStringIncludes(warnings[0]!, "the shell tool runs commands as this user");
    }
    {
      await using server = await startServer({ client: "v1", args: ["--path", p] });
      const tools = (await server.client.listTools()).tools as {
        name: string;
        description: string;
      }[];
      assertNotIncludes(tools.find((x) => x.name === "shell")!.description, "NOT CONFINED");
      await server.close();
      assertNotIncludes(server.stderr(), "warning:");
    }
  },
));

/** A client that offers roots and can change them (v2 in legacy mode: 2026-07-28 has no roots/list). */
let asked = 0;

async function startRootsClient(
  kind: ClientKind,
  args: string[],
  /** The roots to offer; null: never answer roots/list. */
  roots: () => string[] | null,
) {
  const params = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", ...args],
    env: serverEnv(),
    cwd: REPO_ROOT,
    stderr: "pipe" as const,
  };
  const capabilities = { roots: { listChanged: true } };
  const listRoots = () => {
    asked++;
    const paths = roots();
    if (paths === null) return new Promise<never>(() => {});
    return { roots: paths.map((path) => ({ uri: `file://${path}`, name: path })) };
  };
  // deno-lint-ignore no-explicit-any
  let client: any;
  // deno-lint-ignore no-explicit-any
  let transport: any;
  if (kind === "v1") {
    transport = new V1StdioTransport(params);
    client = new V1Client({ name: "anchorfs-roots-test", version: "1.0.0" }, { capabilities });
    client.setRequestHandler(ListRootsRequestSchema, listRoots);
  } else {
    transport = new V2StdioTransport(params);
    client = new V2Client(
      { name: "anchorfs-roots-test", version: "2.0.0" },
      { capabilities, versionNegotiation: { mode: "legacy" } },
    );
    client.setRequestHandler("roots/list", listRoots);
  }
  const askedBefore = asked;
  await client.connect(transport);
  const call = async (name: string, a: Record<string, unknown>) => {
    const raw = await client.callTool({ name, arguments: a });
    // deno-lint-ignore no-explicit-any
    const text = (raw.content as any[]).filter((c) => c.type === "text").map((c) => c.text)
      .join("\n");
    return { text, isError: raw.isError === true };
  };
  return {
    client,
    call,
    asked: () => asked - askedBefore,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`--roots (${kind} client): the client's roots are the allowed set, list_changed applies a new set, and --allow intersects`, async () => {
    await using dir = await tempDir("anchorfs-confine-");
    const t = dir.path;
    await buildWorld(t);
    let roots = [`${t}/proj`];
    {
      await using c = await startRootsClient(kind, ["--path", `${t}/proj`, "--roots"], () => roots);
      assertEquals((await c.call("view", { path: "a.txt" })).isError, false);
      const out = await c.call("view", { path: `${t}/outside/secret.txt` });
      assertStringIncludes(out.text, REFUSED);
      assertStringIncludes(out.text, "the client's roots");
      assertStringIncludes(out.text, "add that directory to the client's roots");
      // An edit made while the file is inside the roots...
      const edit = await c.call("text_editor", {
        command: "str_replace",
        path: `${t}/proj/sub/b.txt`,
        old_text: "bravo",
        new_text: "b",
      });
      assertEquals(edit.isError, false, edit.text);

      roots = [`${t}/outside`];
      await c.client.sendRootsListChanged();
      // The change is asynchronous: wait until the server has asked again and applied it.
      for (let i = 0; i < 200 && c.asked() < 2; i++) await new Promise((r) => setTimeout(r, 25));
      let inside = await c.call("view", { path: `${t}/outside/secret.txt` });
      for (let i = 0; i < 100 && inside.isError; i++) {
        await new Promise((r) => setTimeout(r, 25));
        inside = await c.call("view", { path: `${t}/outside/secret.txt` });
      }
      assertEquals(inside.isError, false, inside.text);
      // ...cannot be undone once the roots no longer hold it; the working directory followed.
      const undo = await c.call("text_editor", {
        command: "undo_edit",
        path: `${t}/proj/sub/b.txt`,
      });
      assertStringIncludes(undo.text, REFUSED);
      assertStringIncludes((await c.call("workdir", { action: "get" })).text, `${t}/outside`);
      assertEquals((await c.call("view", { path: "secret.txt" })).isError, false);
    }
    {
      // --allow and roots together: only what is inside both.
      roots = [t];
      await using c = await startRootsClient(
        kind,
        ["--path", `${t}/proj`, "--roots", "--allow", `${t}/proj`],
        () => roots,
      );
      assertEquals((await c.call("view", { path: "a.txt" })).isError, false);
      const out = await c.call("view", { path: `${t}/outside/secret.txt` });
      assertStringIncludes(out.text, REFUSED);
      assertStringIncludes(out.text, "the client's roots within --allow");
    }
  });
}

Deno.test("--roots: while the client does not answer roots/list, file tools wait, then refuse with ROOTS_PENDING", async () => {
  await using dir = await tempDir("anchorfs-confine-");
  await buildWorld(dir.path);
  await using c = await startRootsClient(
    "v1",
    ["--path", `${dir.path}/proj`, "--roots"],
    () => null,
  );
  const out = await c.call("view", { path: "a.txt" });
  assertEquals(out.isError, true);
  assertStringIncludes(out.text, "has not answered roots/list");
  assertStringIncludes(out.text, "--allow");
});

for (const kind of CLIENT_KINDS) {
  // v1 here declares no roots capability; v2 is pinned to 2026-07-28, which has no roots/list.
  Deno.test(`--roots with a client that offers no roots (${kind}) falls back to the start directory`, async () => {
    await using dir = await tempDir("anchorfs-confine-");
    await buildWorld(dir.path);
    await using server = await startServer({
      client: kind,
      args: ["--path", `${dir.path}/proj`, "--roots"],
    });
    assertEquals((await server.call("view", { path: "a.txt" })).isError, false);
    const out = await server.call("view", { path: "../outside/secret.txt" });
    assertStringIncludes(out.text, REFUSED);
    assertStringIncludes(out.text, "the start directory");
  });
}

Deno.test("anchorfs view/edit/workdir --allow refuse paths outside, with the same message", async () => {
  await using dir = await tempDir("anchorfs-confine-");
  await buildWorld(dir.path);
  const cwd = `${dir.path}/proj`;
  const view = await runCliProcess(["view", "--allow", ".", "filelink"], { cwd });
  assertEquals(view.code, 1);
  assertStringIncludes(view.stderr, REFUSED);
  const edit = await runCliProcess(
    ["edit", "dirlink/victim1.txt", "--old", "victim", "--new", "x", "--allow", "."],
    { cwd },
  );
  assertEquals(edit.code, 1);
  assertStringIncludes(edit.stderr, REFUSED);
  assertEquals(await Deno.readTextFile(`${dir.path}/outside/victim1.txt`), "victim 1\n");
  const wd = await runCliProcess(["workdir", "--allow", ".", "/"], { cwd });
  assertEquals(wd.code, 1);
  assertStringIncludes(wd.stderr, REFUSED);
  const ok = await runCliProcess(["view", "--allow", ".", "a.txt"], { cwd });
  assertEquals(ok.code, 0, ok.stderr);
});
