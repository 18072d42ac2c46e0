// The HTTP server's connection layer and request plumbing, through the real server: a
// flood of half-sent requests under a low open-file limit, connections past the cap, bodies that
// stall, what the operator's log shows, and JSON-RPC ids and order as HTTP carries them. Each test
// names the flag whose small value lets it finish quickly; nothing here measures time
// (scripts/bench/fd_flood_bench.ts does).

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir, writeTree } from "../../_harness.ts";
import { startHttpServer, TOKEN_A } from "./_http_harness.ts";
import {
  eventually,
  jobIdOf,
  livePidsMatching,
  processAlive,
  uniqueMarker,
} from "../_jobs_helpers.ts";
import { needing } from "../../_requires.ts";

const needs = needing("bash", "proc", "signals");

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Opens a connection to the server of `url` and sends `text` (a request cut short, usually). */
async function openWith(url: string, text: string): Promise<Deno.Conn> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(encoder.encode(text));
  } catch (e) {
    conn.close();
    throw e;
  }
  return conn;
}

/**
 * Reads until the server ends the connection: what it sent, and how it ended. A bound of 60 s
 * turns a server that never closes into a failure instead of a hung test ("open").
 */
async function untilClosed(conn: Deno.Conn): Promise<{ text: string; end: "closed" | "open" }> {
  let text = "";
  const buf = new Uint8Array(16384);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"open">((r) => (timer = setTimeout(() => r("open"), 60_000)));
  try {
    while (true) {
      const n = await Promise.race([conn.read(buf).catch(() => null), bound]);
      if (n === "open") return { text, end: "open" };
      if (n === null) return { text, end: "closed" };
      text += decoder.decode(buf.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

const HALF_REQUEST = "POST /mcp HTTP/1.1\r\nHost: 127";

Deno.test(
  needs(
    "http: 1,000 half-sent requests under ulimit -n 256 do not kill the server: it closes them after --header-timeout, keeps its job, and serves a new client",
    async () => {
      await using dir = await tempDir();
      await writeTree(dir.path, { "a.txt": "alpha\n" });
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2", "--header-timeout", "2"],
        fdLimit: 256,
      });
      const agent = await server.connect("v1");
      const marker = uniqueMarker();
      const id = jobIdOf((await agent.call("shell", { command: `sleep ${marker} & wait` })).raw);
      assert(await eventually(() => livePidsMatching(marker).length >= 1));

      const flood: Deno.Conn[] = [];
      for (let i = 0; i < 1000; i++) {
        // A refused connection may be closed before its half request is even written.
        const conn = await openWith(server.url, HALF_REQUEST).catch(() => undefined);
        if (conn) flood.push(conn);
        else assert(processAlive(server.pid), `the server died:\n${server.stderr()}`);
      }
      const ends = await Promise.all(flood.map(untilClosed));
      // Each one was either refused at the cap (a 503 that names the flag) or held and then closed
      // for not finishing its headers; none is left open.
      assertEquals(ends.filter((e) => e.end === "open").length, 0);
      const refused = ends.filter((e) => e.text.startsWith("HTTP/1.1 503"));
      assert(refused.length > 0, "no connection was refused at the cap");
      assertStringIncludes(refused[0]!.text, "--max-connections");
      assert(ends.some((e) => e.text === ""), "no connection was held until the header timeout");

      assert(processAlive(server.pid), `the server died:\n${server.stderr()}`);
      const fresh = await server.connect("v2");
      assertStringIncludes((await fresh.call("view", { path: "a.txt" })).text, "alpha");
      const list = await agent.call("jobs", { action: "list" });
      assertStringIncludes(list.text, id);
      assert(livePidsMatching(marker).length >= 1, "the job's process is gone");
      assert(!server.stderr().includes("Uncaught"), server.stderr());
      assertStringIncludes(server.stderr(), "open-file limit 256");
    },
  ),
);

Deno.test(
  needs("http: a connection past --max-connections gets a 503 that names the flag", async () => {
    await using server = await startHttpServer({ args: ["--max-connections", "2"] });
    const held = [
      await openWith(server.url, HALF_REQUEST),
      await openWith(server.url, HALF_REQUEST),
    ];
    // The server has accepted both once it answers a third connection with 503.
    let third;
    for (let i = 0; i < 50; i++) {
      third = await untilClosed(await openWith(server.url, HALF_REQUEST));
      if (third.text.startsWith("HTTP/1.1 503")) break;
    }
    assertStringIncludes(third!.text, "HTTP/1.1 503");
    assertStringIncludes(third!.text, "--max-connections");
    for (const conn of held) conn.close();
    // The slots free up as the held connections close: a real request is served again.
    assert(
      await eventuallyAsync(async () => {
        const r = await fetch(server.url, { method: "POST" });
        await r.body?.cancel();
        return r.status === 401;
      }),
    );
  }),
);

Deno.test(
  needs(
    "http: a request body that stalls is cut after --body-timeout, and the server goes on",
    async () => {
      await using server = await startHttpServer({ args: ["--body-timeout", "1"] });
      const conn = await openWith(
        server.url,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          `Accept: application/json, text/event-stream\r\nAuthorization: Bearer ${TOKEN_A}\r\n` +
          'Content-Length: 1000\r\n\r\n{"jsonrpc":',
      );
      const end = await untilClosed(conn);
      assertEquals(end.end, "closed");
      const client = await server.connect("v1");
      assertEquals((await client.call("workdir", {})).isError, false);
    },
  ),
);

Deno.test(
  needs(
    "http: a session leaves no runtime warning (Deno.serve's legacy request.signal) on stderr",
    async () => {
      await using dir = await tempDir();
      await writeTree(dir.path, { "a.txt": "alpha\n" });
      await using server = await startHttpServer({ args: ["--path", dir.path] });
      for (const kind of ["v1", "v2"] as const) {
        const c = await server.connect(kind);
        assertStringIncludes((await c.call("view", { path: "a.txt" })).text, "alpha");
        await c.close();
      }
      assertEquals(await server.stop(), 0);
      assert(!/legacy behavior|request\.signal|Deno\.serve/.test(server.stderr()), server.stderr());
    },
  ),
);

async function eventuallyAsync(check: () => Promise<boolean>, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

Deno.test(
  needs(
    "http: tools/call before initialize is refused with 400, naming initialize (issue 29.10)",
    async () => {
      await using server = await startHttpServer();
      const response = await fetch(server.url, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TOKEN_A}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "workdir", arguments: {} },
        }),
      });
      assertEquals(response.status, 400);
      assertStringIncludes(
        (await response.json()).error.message,
        "a session starts with initialize",
      );
    },
  ),
);

Deno.test(
  needs(
    "http: integer ids past 2^53 come back digit for digit, in results and in errors (issue 29.10)",
    async () => {
      await using server = await startHttpServer();
      const headers = {
        Authorization: `Bearer ${TOKEN_A}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      };
      const init = await fetch(server.url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      });
      await init.body?.cancel();
      const session = {
        ...headers,
        "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
        "Mcp-Protocol-Version": "2025-11-25",
      };
      // Written as text: JSON.stringify of a JavaScript number could not even send these ids.
      for (
        const [id, method] of [["9007199254740993", "ping"], ["-9007199254740993", "no/such"]]
      ) {
        const response = await fetch(server.url, {
          method: "POST",
          headers: session,
          body: `{"jsonrpc":"2.0","id":${id},"method":"${method}"}`,
        });
        const text = await response.text();
        assert(new RegExp(`"id":${id}[,}]`).test(text), text);
        assert(!text.includes("anchorfs-integer-id"), text);
      }
    },
  ),
);

Deno.test(
  needs(
    "http listener: running out of descriptors at accept pauses accepting, never exits, and serves again once the stalled connections time out",
    async () => {
      const server = new URL("./_emfile_server.ts", import.meta.url).pathname;
      const child = new Deno.Command("sh", {
        args: [
          "-c",
          'ulimit -n 64 && exec "$@"',
          "sh",
          Deno.execPath(),
          "run",
          "-A",
          "--quiet",
          server,
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!/port (\d+)\n/.test(out)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the listener exited before listening: ${await stderr}`);
        out += value;
      }
      const url = `http://127.0.0.1:${/port (\d+)/.exec(out)![1]}/`;
      const flood: Deno.Conn[] = [];
      for (let i = 0; i < 150; i++) {
        const conn = await openWith(url, HALF_REQUEST).catch(() => undefined);
        if (conn) flood.push(conn);
      }
      // More connections than descriptors: the ones past the limit wait in the kernel's queue, and
      // are accepted as the header timeout closes the first ones; every one ends.
      const ends = await Promise.all(flood.map(untilClosed));
      assertEquals(ends.filter((e) => e.end === "open").length, 0);
      if (!processAlive(child.pid)) {
        throw new Error(`the listener died: ${JSON.stringify(await child.status)} ${await stderr}`);
      }
      assert(
        await eventuallyAsync(async () => (await (await fetch(url)).text()) === "ok"),
        "no request was served after the flood",
      );
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel().catch(() => {});
      assertStringIncludes(await stderr, "out of file descriptors while accepting");
    },
  ),
);
