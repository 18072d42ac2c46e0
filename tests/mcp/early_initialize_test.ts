// The early initialize (lib/mcp/early_initialize.ts, early_start.ts): its reply is byte for byte
// the SDK's for every 2025-era version, checked against the real SDK and the spawned server.

import { assert, assertEquals } from "../_assert.ts";
import { InMemoryTransport, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { closeServices, createServices } from "../../lib/compose.ts";
import { createSession } from "../../lib/ops/session.ts";
import { createServerFactory } from "../../lib/mcp/server.ts";
import { describeServer } from "../../lib/mcp/server_info.ts";
import {
  earlyInitializeReply,
  LEGACY_PROTOCOL_VERSIONS,
} from "../../lib/mcp/stdio/early_initialize.ts";
import { scanOpeningFlags } from "../../lib/mcp/stdio/early_start.ts";
import { MAIN_TS, REPO_ROOT, serverEnv, tempDir } from "../_harness.ts";

type Json = Record<string, unknown>;

const initialize = (params: Json, id: string | number = 0): Json => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params,
});

/** What the SDK's own server (our factory) answers to `request`, as JSON text. */
async function sdkReply(
  options: { shell: boolean; confinedTo?: string },
  request: Json,
): Promise<string> {
  await using dir = await tempDir();
  const services = createServices({ stateDir: `${dir.path}/state` });
  try {
    const session = createSession(services.locations.localAt(dir.path));
    const mcp = createServerFactory(services, session, {
      foregroundWindowSeconds: 10,
      tailBytes: 4096,
      confined: options.confinedTo !== undefined,
      ...options,
    })();
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const reply = new Promise<unknown>((resolve) => clientSide.onmessage = resolve);
    await clientSide.start();
    // deno-lint-ignore no-explicit-any
    await clientSide.send(request as any);
    const text = JSON.stringify(await reply);
    await mcp.close();
    return text;
  } finally {
    await closeServices(services);
  }
}

Deno.test("LEGACY_PROTOCOL_VERSIONS are the SDK's 2025-era versions, newest first", () => {
  assertEquals(
    [...LEGACY_PROTOCOL_VERSIONS],
    SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < "2026-07-28"),
  );
});

Deno.test("the early initialize reply is byte for byte the SDK's, for every case it answers", async () => {
  const clients: Json[] = [
    { capabilities: {}, clientInfo: { name: "c", version: "1" } },
    {
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
      clientInfo: { name: "claude-code", version: "2.1.0", title: "Claude Code" },
    },
    {
      capabilities: { experimental: { "x/y": { on: true } }, extensions: {} },
      clientInfo: { name: "c", version: "1", description: "d", websiteUrl: "https://e.example" },
    },
  ];
  const variants = [
    { shell: true },
    { shell: false },
    { shell: true, confinedTo: '"/srv/app"' },
  ];
  let compared = 0;
  for (const options of variants) {
    for (const protocolVersion of LEGACY_PROTOCOL_VERSIONS) {
      for (const [i, client] of clients.entries()) {
        const request = initialize({ protocolVersion, ...client }, i === 1 ? "s-1" : i);
        const early = earlyInitializeReply(request, describeServer(options));
        assert(early, `not answered early: ${JSON.stringify(request)}`);
        assertEquals(JSON.stringify(early), await sdkReply(options, request));
        compared++;
      }
    }
  }
  assertEquals(compared, 3 * 5 * 3);
});

Deno.test("the early initialize leaves anything unusual to the SDK", () => {
  const info = describeServer({ shell: true });
  const base = {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  };
  const cases: [string, Json][] = [
    ["a version the SDK negotiates down", initialize({ ...base, protocolVersion: "2099-01-01" })],
    ["a _meta (may claim the 2026-07-28 era)", initialize({ ...base, _meta: {} })],
    ["no clientInfo", initialize({ protocolVersion: "2025-11-25", capabilities: {} })],
    [
      "clientInfo with icons",
      initialize({ ...base, clientInfo: { name: "c", version: "1", icons: [] } }),
    ],
    ["roots not an object", initialize({ ...base, capabilities: { roots: "yes" } })],
    [
      "roots.listChanged not a boolean",
      initialize({ ...base, capabilities: { roots: { listChanged: 1 } } }),
    ],
    ["an unknown capability", initialize({ ...base, capabilities: { bogus: {} } })],
    [
      "nested task capabilities",
      initialize({ ...base, capabilities: { tasks: { requests: { sampling: {} } } } }),
    ],
    ["a notification", { jsonrpc: "2.0", method: "initialize", params: base }],
    ["another method", { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }],
  ];
  for (const [what, message] of cases) {
    assertEquals(earlyInitializeReply(message, info), undefined, what);
  }
});

Deno.test("scanOpeningFlags reads only plain flags; --allow, --roots, --http, help and oddities go to the full parser", () => {
  assertEquals(scanOpeningFlags([]), {
    shell: true,
    maxMessageBytes: 4 * 1024 * 1024,
    needsCheck: false,
    values: {},
  });
  assertEquals(
    scanOpeningFlags(["--path", "/tmp", "--no-shell", "--max-message-bytes=1M", "--deadline", "5"]),
    {
      shell: false,
      maxMessageBytes: 1024 * 1024,
      path: "/tmp",
      needsCheck: true,
      values: { path: "/tmp", "no-shell": true, "max-message-bytes": "1M", deadline: "5" },
    },
  );
  for (
    const args of [
      ["--allow", "/tmp"],
      ["--roots"],
      ["--http", "127.0.0.1:0"],
      ["--help"],
      ["-h"],
      ["--bogus"],
      ["positional"],
      ["--path", "/a", "--path", "/b"],
      ["--path"],
      ["--path", "-x"],
      ["--path", "ssh://box/srv"],
      ["--no-shell=yes"],
      ["--max-message-bytes", "12"],
    ]
  ) {
    assertEquals(scanOpeningFlags(args), undefined, args.join(" "));
  }
});

/** Spawns `main.ts mcp ARGS`, writes `input` at once, reads stdout until `until` holds. */
async function rawSession(
  input: string,
  until: (messages: Json[]) => boolean,
  args: string[] = [],
  closeStdin = false,
): Promise<{ messages: Json[]; stderr: string; code: number }> {
  await using dir = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", "--path", dir.path, ...args],
    cwd: REPO_ROOT,
    env: serverEnv({ ANCHORFS_STATE_DIR: `${dir.path}/.state` }),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  if (closeStdin) await writer.close();
  const stderr = new Response(child.stderr).text();
  const messages: Json[] = [];
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = text.indexOf("\n")) >= 0) {
      messages.push(JSON.parse(text.slice(0, nl)));
      text = text.slice(nl + 1);
    }
    if (until(messages)) break;
  }
  if (!closeStdin) await writer.close().catch(() => {});
  const { code } = await child.status;
  await child.stdout.cancel().catch(() => {});
  return { messages, stderr: await stderr, code };
}

const line = (m: Json) => `${JSON.stringify(m)}\n`;
const CLIENT = { capabilities: {}, clientInfo: { name: "raw", version: "1" } };

Deno.test("a server started with a burst of messages answers initialize once (as the SDK would) and the rest in order", async () => {
  const request = initialize({ protocolVersion: "2025-06-18", ...CLIENT });
  const input = line(request) +
    line({ jsonrpc: "2.0", method: "notifications/initialized" }) +
    line({ jsonrpc: "2.0", id: 1, method: "tools/list" }) +
    line({ jsonrpc: "2.0", id: 2, method: "ping" });
  const { messages, stderr } = await rawSession(
    input,
    (ms) => ms.some((m) => m.id === 2) && ms.some((m) => m.id === 1),
  );
  const replies = messages.filter((m) => "id" in m);
  assertEquals(replies.map((m) => m.id), [0, 1, 2]);
  assertEquals(JSON.stringify(replies[0]), await sdkReply({ shell: true }, request));
  assert(((replies[1]!.result as Json).tools as unknown[]).length > 5);
  assertEquals(stderr.includes("differed"), false, stderr);
});

Deno.test("an initialize the early path leaves alone is answered once, by the SDK", async () => {
  const request = initialize({ protocolVersion: "2099-01-01", ...CLIENT }, "x");
  const input = line(request) + line({ jsonrpc: "2.0", id: 1, method: "ping" });
  const { messages } = await rawSession(input, (ms) => ms.some((m) => m.id === 1));
  const replies = messages.filter((m) => "id" in m);
  assertEquals(replies.map((m) => m.id), ["x", 1]);
  assertEquals((replies[0]!.result as Json).protocolVersion, "2025-11-25");
  assertEquals(JSON.stringify(replies[0]), await sdkReply({ shell: true }, request));
});

Deno.test("--no-shell is read before the SDK loads: the early reply has no shell", async () => {
  const request = initialize({ protocolVersion: "2025-11-25", ...CLIENT });
  const { messages } = await rawSession(line(request), (ms) => ms.length > 0, ["--no-shell"]);
  assertEquals(JSON.stringify(messages[0]), await sdkReply({ shell: false }, request));
});

Deno.test("stdin closed right after initialize: it is answered once and the server exits 0", async () => {
  // (A request sent after it, before the close, may or may not be answered, as with the SDK alone.)
  const input = line(initialize({ protocolVersion: "2025-11-25", ...CLIENT }));
  const { messages, code } = await rawSession(input, () => false, [], true);
  assertEquals(messages.map((m) => m.id), [0]);
  assertEquals(code, 0);
});

Deno.test("SIGTERM right after the early initialize reply ends the server in order (exit 0)", async () => {
  await using dir = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", "--path", dir.path],
    cwd: REPO_ROOT,
    env: serverEnv({ ANCHORFS_STATE_DIR: `${dir.path}/.state` }),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(line(initialize({ protocolVersion: "2025-11-25", ...CLIENT }))),
  );
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert(new TextDecoder().decode(value).includes('"serverInfo"'));
  child.kill("SIGTERM");
  assertEquals((await child.status).code, 0);
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  await writer.close().catch(() => {});
});
