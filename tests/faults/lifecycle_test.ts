// The stdio session's edges, through the real server fed raw bytes: a request before
// `initialize` is refused (not served), an integer id past 2^53 comes back as sent, and the
// last message of a stream that ends without a newline is answered, as are the requests still
// running when stdin closes.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MAIN_TS, REPO_ROOT, serverEnv, tempDir, writeTree } from "../_harness.ts";

type Json = Record<string, unknown>;

const line = (m: Json) => `${JSON.stringify(m)}\n`;
const INITIALIZE = line({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "lifecycle-test", version: "1" },
  },
}) + line({ jsonrpc: "2.0", method: "notifications/initialized" });

/** Runs `main.ts mcp --path DIR`, writes `input`, closes stdin, and reads stdout to the end. */
async function pipeSession(dir: string, input: string): Promise<{ lines: string[]; code: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", "--path", dir],
    cwd: REPO_ROOT,
    env: serverEnv({ ANCHORFS_STATE_DIR: `${dir}/.state` }),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await new Response(child.stdout).text();
  const { code } = await child.status;
  clearTimeout(guard);
  return { lines: out.split("\n").filter((l) => l !== ""), code };
}

function replyTo(lines: string[], id: unknown): Json | undefined {
  return lines.map((l) => JSON.parse(l) as Json).find((m) => m.id === id && !("method" in m));
}

Deno.test("a tools/call before initialize is refused and runs nothing; ping is served", async () => {
  await using dir = await tempDir();
  const input = line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "text_editor",
      arguments: { command: "create", path: "made.txt", file_text: "x\n" },
    },
  }) + line({ jsonrpc: "2.0", id: 2, method: "ping" }) + INITIALIZE +
    line({ jsonrpc: "2.0", id: 3, method: "tools/list" });
  const { lines, code } = await pipeSession(dir.path, input);
  assertEquals(code, 0);
  const refused = replyTo(lines, 1);
  const error = refused?.error as { code: number; message: string } | undefined;
  assertEquals(error?.code, -32600, JSON.stringify(refused));
  assertStringIncludes(error!.message, '"tools/call" arrived before "initialize"');
  assertEquals(await Deno.stat(`${dir.path}/made.txt`).catch(() => null), null);
  assert(replyTo(lines, 2)?.result !== undefined, "ping is answered before initialize");
  // After initialize the same session serves requests as usual.
  assert(replyTo(lines, 3)?.result !== undefined, lines.join("\n"));
});

Deno.test("integer ids past 2^53 are echoed digit for digit, in results and in errors", async () => {
  await using dir = await tempDir();
  const input = INITIALIZE +
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n' +
    '{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"tools/list"}\n' +
    '{"jsonrpc":"2.0","id":18446744073709551617,"method":"no/such/method"}\n' +
    '{"jsonrpc":"2.0","id":18446744073709551619,"method":"ping","extra":1}\n' +
    '{"jsonrpc":"2.0","id":"anchorfs-integer-id-x:1","method":"ping"}\n';
  const { lines } = await pipeSession(dir.path, input);
  const find = (digits: string) => lines.find((l) => l.includes(`"id":${digits}}`));
  const ping = find("9007199254740993");
  assert(ping?.includes('"result":{}'), lines.join("\n"));
  assert(find("-123456789012345678901234567890")?.includes('"tools"'), lines.join("\n"));
  assert(find("18446744073709551617")?.includes('"code":-32601'), lines.join("\n"));
  assert(find("18446744073709551619")?.includes('"code":-32600'), lines.join("\n"));
  // A client's own string id is echoed as the string it is.
  assert(lines.some((l) => l.includes('"id":"anchorfs-integer-id-x:1"')), lines.join("\n"));
  assertEquals(lines.some((l) => l.includes("9007199254740992")), false);
});

Deno.test("the last message of a stream without a final newline is answered, and so are requests still running at the end", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\nbeta\n" });
  const view = (id: number, path: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "view", arguments: { path } },
    });
  // Written at once and closed: the calls are still running when stdin ends.
  const input = `${INITIALIZE}${view(1, ".")}\n${view(2, "a.txt")}`;
  const { lines, code } = await pipeSession(dir.path, input);
  assertEquals(code, 0);
  const listing = replyTo(lines, 1);
  assertStringIncludes(JSON.stringify(listing?.result), "a.txt", lines.join("\n"));
  const last = replyTo(lines, 2);
  assertStringIncludes(JSON.stringify(last?.result), "1:", lines.join("\n"));
  assertStringIncludes(JSON.stringify(last?.result), "alpha", lines.join("\n"));
});
