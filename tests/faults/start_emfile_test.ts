// A server started under a limit of open files that leaves almost nothing free (`ulimit -n`),
// through the real server: it either says on stderr that it cannot start and exits before
// answering anything, or it answers `initialize` and then every call (an EMFILE error at worst).
// Never a server that answers `initialize` and then ends: in Deno 2.9.6 the rest of the server,
// loaded right after that reply, panicked the process when a module's cached emit could not be
// opened (swc's stack probe asserts that /proc/self/maps opens).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { RawServer } from "./_raw_stdio.ts";

const needsProc = needing("proc");

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "start-emfile-test", version: "1.0.0" },
};

/** What one server did under `limit`: "refused" (no reply, exited) or "served" (all answered). */
async function startUnder(limit: number, root: string): Promise<"refused" | "served"> {
  await using server = RawServer.spawn(["--path", root], { fileLimit: limit });
  await server.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE })}\n`,
  );
  try {
    await server.replyTo(0);
  } catch (e) {
    // Too few descriptors for the runtime to start, or for ours: no reply, and gone.
    assertStringIncludes(String(e), "exited", `limit ${limit}: ${server.stderr}`);
    assertEquals(server.messages, [], `limit ${limit}`);
    return "refused";
  }
  await server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const where = `limit ${limit}, answered initialize; stderr:\n${server.stderr}`;
  const ask = (id: number, method: string, params?: Record<string, unknown>) =>
    server.request(id, method, params).catch((e) => {
      throw new Error(`${e} (${where})`);
    });
  const tools = await ask(1, "tools/list");
  assert(Array.isArray(tools.result?.tools), where);
  const view = await ask(2, "tools/call", { name: "view", arguments: { path: "a.txt" } });
  const text = JSON.stringify(view.result);
  // Under so low a limit the call itself may find no descriptor: then it says so.
  assert(text.includes("alpha") || text.includes("EMFILE"), `${text} (${where})`);
  await server.close();
  assertEquals((await server.status).code, 0, where);
  return "served";
}

Deno.test(needsProc(
  "under any limit of open files a server that answered initialize answers every call after",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "alpha\n" });
    const outcomes: string[] = [];
    // Upwards from a limit the runtime cannot start under, until three servers in a row serve:
    // the limits where the start-up loads could meet EMFILE lie in between.
    for (let limit = 12; outcomes.slice(-3).join() !== "served,served,served"; limit++) {
      assert(limit < 200, `no server served under limits up to 200: ${outcomes}`);
      outcomes.push(await startUnder(limit, dir.path));
    }
    // Not vacuous: some limit was too low to start under.
    assertEquals(outcomes[0], "refused");
  },
));
