// --roots fails closed, through the real server and the SDK's v1 client playing a client whose
// roots answers are slow, late, failing or not local: a changed set is never served from the
// roots before the change, a late answer to an older request never wins over a newer one, and a
// root on another host (`file:////host/share`, `file://host/...`) is refused, not read as local.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MAIN_TS, REPO_ROOT, serverEnv, tempDir, writeTree } from "../_harness.ts";

const REFUSED = "is outside the directories this server may use";

type Answer = { roots: { uri: string; name: string }[] };

/** A v1 client offering roots; `answer(n)` answers the n-th roots/list (1-based). */
async function rootsClient(dir: string, answer: (n: number) => Promise<Answer>) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", "--path", `${dir}/proj`, "--roots"],
    env: serverEnv({ ANCHORFS_STATE_DIR: `${dir}/.state` }),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  const client = new Client({ name: "roots-test", version: "1" }, {
    capabilities: { roots: { listChanged: true } },
  });
  let asked = 0;
  const askedListeners: (() => void)[] = [];
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked++;
    for (const listener of askedListeners.splice(0)) listener();
    return answer(asked);
  });
  await client.connect(transport);
  return {
    client,
    get asked() {
      return asked;
    },
    /** Resolves once the server has asked `n` times in all. */
    async askedTimes(n: number): Promise<void> {
      while (asked < n) await new Promise<void>((resolve) => askedListeners.push(resolve));
    },
    async call(name: string, args: Record<string, unknown>) {
      const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
      const text = (raw.content as { type: string; text?: string }[])
        .map((c) => c.text ?? "").join("\n");
      return { text, isError: raw.isError === true };
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

const roots = (...paths: string[]): Answer => ({
  roots: paths.map((path) => ({ uri: `file://${path}`, name: path })),
});
const never = () => new Promise<never>(() => {});

async function world() {
  const dir = await tempDir("anchorfs-roots-");
  await writeTree(dir.path, { "proj/a.txt": "alpha\n", "outside/secret.txt": "SECRET\n" });
  return dir;
}

Deno.test("--roots: after roots/list_changed, a file call never runs on the roots from before the change", async () => {
  await using dir = await world();
  const t = dir.path;
  await using c = await rootsClient(
    t,
    (n) => n === 1 ? Promise.resolve(roots(`${t}/proj`, `${t}/outside`)) : never(),
  );
  assertEquals((await c.call("view", { path: `${t}/outside/secret.txt` })).isError, false);
  // The user removes "outside" from the workspace; the client never answers the new roots/list.
  await c.client.sendRootsListChanged();
  await c.askedTimes(2);
  const out = await c.call("view", { path: `${t}/outside/secret.txt` });
  assert(out.isError, out.text);
  assertStringIncludes(out.text, "The client said its roots changed and has not answered");
  assertStringIncludes(out.text, "(not the ones from before)");
  assertEquals(out.text.includes("SECRET"), false);
});

Deno.test("--roots: a late answer to an older roots/list does not overwrite a newer one", async () => {
  await using dir = await world();
  const t = dir.path;
  let releaseLate!: () => void;
  const late = new Promise<void>((resolve) => releaseLate = resolve);
  await using c = await rootsClient(t, async (n) => {
    if (n === 2) {
      // The answer to the second request comes last, with the old, wider set.
      await late;
      return roots(`${t}/proj`, `${t}/outside`);
    }
    return roots(`${t}/proj`);
  });
  assertEquals((await c.call("view", { path: "a.txt" })).isError, false);
  await c.client.sendRootsListChanged();
  await c.askedTimes(2);
  await c.client.sendRootsListChanged();
  await c.askedTimes(3);
  releaseLate();
  await late;
  // Generously bounded: where the late answer wins, it does within a few calls.
  for (let i = 0; i < 30; i++) {
    const out = await c.call("view", { path: `${t}/outside/secret.txt` });
    assert(out.isError, `call ${i}: ${out.text}`);
    assertStringIncludes(out.text, REFUSED);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assertEquals((await c.call("view", { path: "a.txt" })).isError, false);
});

Deno.test("--roots: a failed roots/list refuses file calls and is asked again", async () => {
  await using dir = await world();
  const t = dir.path;
  await using c = await rootsClient(t, (n) => {
    if (n === 2 || n === 3) return Promise.reject(new Error("the workspace is being reloaded"));
    return Promise.resolve(roots(`${t}/proj`));
  });
  assertEquals((await c.call("view", { path: "a.txt" })).isError, false);
  await c.client.sendRootsListChanged();
  await c.askedTimes(2);
  const out = await c.call("view", { path: "a.txt" });
  assert(out.isError, out.text);
  assertStringIncludes(out.text, "The client's answer to roots/list failed");
  assertStringIncludes(out.text, "it was asked again");
  // Each refused call asks again; once the client answers, calls work.
  let next = out;
  for (let i = 0; i < 5 && next.isError; i++) next = await c.call("view", { path: "a.txt" });
  assertEquals(next.isError, false, next.text);
  assert(c.asked >= 4, `asked ${c.asked} times`);
});

Deno.test("--roots: a root on another host is refused, not taken as a local path", async () => {
  await using dir = await world();
  const t = dir.path;
  // `file:////tmp/x` is the UNC form of host "tmp", share "x"; `file://otherhost/...` names a host.
  await using c = await rootsClient(t, () =>
    Promise.resolve({
      roots: [
        { uri: `file:///${t}/proj`, name: "unc" },
        { uri: `file://otherhost${t}/proj`, name: "host" },
      ],
    }));
  const out = await c.call("view", { path: "a.txt" });
  assert(out.isError, out.text);
  assertStringIncludes(out.text, REFUSED);
  assertStringIncludes(out.text, `The client also offered "file:///${t}/proj"`);
  assertStringIncludes(out.text, "only local file:// roots");
});
