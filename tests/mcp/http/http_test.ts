// The HTTP server (`anchorfs mcp --http`) driven by the real SDK clients over Streamable HTTP:
// tools in both eras, a promoted job and its notification, per-session state, authentication,
// DNS-rebinding checks, session DELETE and idle expiry, limits, and SIGTERM.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { CLIENT_KINDS, REPO_ROOT, tempDir, writeTree } from "../../_harness.ts";
import { startHttpServer, TOKEN_A, TOKEN_B } from "./_http_harness.ts";
import { eventually, jobIdOf, livePidsMatching, pause, uniqueMarker } from "../_jobs_helpers.ts";
import { needing } from "../../_requires.ts";

const needs = needing("bash", "proc", "signals");

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "curl-like", version: "1" },
  },
};

function post(
  url: string,
  headers: Record<string, string>,
  body: unknown = INIT,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A POST over a raw socket: fetch does not let a caller set Host. Returns status and body. */
async function rawPost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port, pathname } = new URL(url);
  const body = JSON.stringify(INIT);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const head = Object.entries({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Content-Length": String(new TextEncoder().encode(body).length),
    Connection: "close",
    ...headers,
  }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(new TextEncoder().encode(`POST ${pathname} HTTP/1.1\r\n${head}\r\n${body}`));
  let text = "";
  const buf = new Uint8Array(65536);
  while (!/\r\n\r\n[\s\S]*\}\s*$/.test(text)) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return { status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

for (const kind of CLIENT_KINDS) {
  Deno.test(needs(`http (${kind} client): tools work over Streamable HTTP`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "alpha\nbeta\n" });
    await using server = await startHttpServer({ args: ["--path", dir.path] });
    const c = await server.connect(kind);
    const tools = await c.client.listTools();
    // deno-lint-ignore no-explicit-any
    const names = tools.tools.map((t: any) => t.name);
    for (const name of ["view", "text_editor", "shell", "workdir", "jobs"]) {
      assert(names.includes(name), `${name} missing from ${names}`);
    }
    const view = await c.call("view", { path: "a.txt" });
    assertEquals(view.isError, false);
    assertStringIncludes(view.text, "alpha");
    const shell = await c.call("shell", { command: "echo hi-from-http" });
    assertStringIncludes(shell.text, "hi-from-http");
  }));
}

Deno.test(
  needs(
    "http (v1 client): a promoted job notifies resources/updated and the channel on the session stream",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.3"],
      });
      const c = await server.connect("v1");
      const updates: string[] = [];
      // deno-lint-ignore no-explicit-any
      c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n: any) => {
        updates.push(n.params.uri);
      });
      // The channel push (Claude Code wakes the model on it) rides the same session stream.
      const channel: string[] = [];
      // deno-lint-ignore no-explicit-any
      c.client.fallbackNotificationHandler = (n: any) => {
        if (n.method === "notifications/claude/channel") channel.push(n.params.meta.job);
        return Promise.resolve();
      };
      const r = await c.call("shell", { command: `${pause(1)}; echo done-job` });
      const id = jobIdOf(r.raw);
      assert(
        await eventually(() => updates.includes(`anchorfs://jobs/${id}`), 20_000),
        `${updates}`,
      );
      assert(await eventually(() => channel.includes(id), 10_000), `${channel}`);
      const read = await c.call("jobs", { action: "read", id });
      assertStringIncludes(read.text, "done-job");
    },
  ),
);

Deno.test(
  needs(
    "http (v2 client, 2026-07-28): a promoted job notifies its subscriptions/listen stream",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.3"],
      });
      const c = await server.connect("v2");
      const updates: string[] = [];
      let listChanges = 0;
      // deno-lint-ignore no-explicit-any
      c.client.setNotificationHandler("notifications/resources/updated", (n: any) => {
        updates.push(n.params.uri);
      });
      c.client.setNotificationHandler("notifications/resources/list_changed", () => {
        listChanges++;
      });
      const listAll = await c.client.listen({ resourcesListChanged: true });
      const r = await c.call("shell", { command: `${pause(3)}; echo done-job` });
      const uri = `anchorfs://jobs/${jobIdOf(r.raw)}`;
      const listJob = await c.client.listen({ resourceSubscriptions: [uri] });
      assert(await eventually(() => updates.includes(uri), 20_000), `${updates}`);
      assert(
        await eventually(() => listChanges >= 2),
        `saw ${listChanges} list changes`,
      );
      await listJob.close();
      await listAll.close();
    },
  ),
);

Deno.test(
  needs(
    "http (v2 client, 2026-07-28): a listen opened after the job ended gets its update replayed",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2"],
      });
      const c = await server.connect("v2");
      const updates: string[] = [];
      // deno-lint-ignore no-explicit-any
      c.client.setNotificationHandler("notifications/resources/updated", (n: any) => {
        updates.push(n.params.uri);
      });
      const r = await c.call("shell", { command: `${pause(0.5)}; echo done-job` });
      const id = jobIdOf(r.raw);
      await c.call("jobs", { action: "wait", id });
      const uri = `anchorfs://jobs/${id}`;
      const listen = await c.client.listen({ resourceSubscriptions: [uri] });
      assert(await eventually(() => updates.includes(uri), 10_000), `${updates}`);
      await listen.close();
    },
  ),
);

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(`http (${kind} client): shell heartbeats arrive as progress notifications`, async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "3.5"],
      });
      const c = await server.connect(kind);
      const messages: string[] = [];
      const r = await c.call(
        "shell",
        { command: "echo tick; until [ -f never-created ]; do sleep 0.05; done" },
        // deno-lint-ignore no-explicit-any
        { onprogress: (p: any) => messages.push(p.message ?? ""), resetTimeoutOnProgress: true },
      );
      assertStringIncludes(r.text, "still running as job");
      assert(messages.length >= 1, "no progress notification arrived");
      assertStringIncludes(messages[0]!, "tick");
      await c.call("jobs", { action: "kill", id: jobIdOf(r.raw) });
    }),
  );
}

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(`http (${kind} clients): two agents keep their own cwd, undo and jobs`, async () => {
      await using dir = await tempDir();
      await Deno.mkdir(`${dir.path}/one`);
      await Deno.mkdir(`${dir.path}/two`);
      await writeTree(dir.path, { "one/f.txt": "x\n", "two/f.txt": "y\n" });
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2"],
      });
      // v1: two sessions of one token; v2 (no transport session): two tokens.
      const a = await server.connect(kind, TOKEN_A);
      const b = await server.connect(kind, kind === "v1" ? TOKEN_A : TOKEN_B);
      await Promise.all([
        a.call("workdir", { action: "set", path: "one" }),
        b.call("workdir", { action: "set", path: "two" }),
      ]);
      assertEquals((await a.call("workdir", {})).text, `Working directory: ${dir.path}/one`);
      assertEquals((await b.call("workdir", {})).text, `Working directory: ${dir.path}/two`);
      assertStringIncludes((await a.call("shell", { command: "pwd" })).text, `${dir.path}/one`);

      // An edit by a is a's to undo, not b's.
      const edit = await a.call("text_editor", {
        command: "create",
        path: `${dir.path}/new.txt`,
        file_text: "made by a\n",
      });
      assertEquals(edit.isError, false, edit.text);
      const foreignUndo = await b.call("text_editor", {
        command: "undo_edit",
        path: `${dir.path}/new.txt`,
      });
      assert(foreignUndo.isError, foreignUndo.text);

      // a's job is not in b's list, and b cannot read it.
      const job = await a.call("shell", { command: `${pause(0.6)}; echo job-of-a` });
      const id = jobIdOf(job.raw);
      assertStringIncludes((await a.call("jobs", { action: "list" })).text, id);
      const bList = await b.call("jobs", { action: "list" });
      assert(!bList.text.includes(id), bList.text);
      const bRead = await b.call("jobs", { action: "read", id });
      assert(bRead.isError, bRead.text);
      assertStringIncludes(bRead.text, "No job with id");
    }),
  );
}

/** Reads SSE frames until one's data satisfies `until` (at most 20 s); returns ids and data. */
async function readSse(
  response: Response,
  until: (data: string) => boolean,
): Promise<{ id: string | undefined; data: string }[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: { id: string | undefined; data: string }[] = [];
  let text = "";
  // A frame that never comes ends the read (and fails the assertion after it), not the run.
  const timer = setTimeout(() => reader.cancel().catch(() => {}), 20_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return frames;
      text += value;
      const parts = text.split("\n\n");
      text = parts.pop()!;
      for (const part of parts) {
        const lines = part.split("\n");
        const id = lines.find((l) => l.startsWith("id:"))?.slice(3).trim();
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
          .join("\n");
        frames.push({ id, data });
        if (until(data)) return frames;
      }
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

Deno.test(
  needs(
    "http: a GET stream resumed with Last-Event-ID gets the notifications it missed",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2"],
      });
      const auth = { Authorization: `Bearer ${TOKEN_A}` };
      const init = await post(server.url, auth);
      const session = init.headers.get("mcp-session-id")!;
      await readSse(init, (d) => d.includes('"result"'));
      const headers = { ...auth, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25" };
      const initialized = await post(server.url, headers, {
        jsonrpc: "2.0",
        method: "notifications/initialized",
      });
      await initialized.body?.cancel();
      const jobEnds = async (n: number): Promise<string> => {
        const call = await post(server.url, headers, {
          jsonrpc: "2.0",
          id: 10 + n,
          method: "tools/call",
          params: { name: "shell", arguments: { command: `${pause(0.5)}; echo job-${n}` } },
        });
        const result = (await readSse(call, (d) => d.includes(`"id":${10 + n}`))).at(-1)!.data;
        const uri = /anchorfs:\/\/jobs\/[\w-]+/.exec(result)![0];
        const wait = await post(server.url, headers, {
          jsonrpc: "2.0",
          id: 20 + n,
          method: "tools/call",
          params: { name: "jobs", arguments: { action: "wait", id: uri.split("/").pop() } },
        });
        await readSse(wait, (d) => d.includes(`"id":${20 + n}`));
        return uri;
      };
      // The GET stream sees the first job's end, with an event id; then the client drops it.
      const get = await fetch(server.url, { headers: { ...headers, Accept: "text/event-stream" } });
      const seen = readSse(get, (d) => d.includes("resources/updated"));
      const first = await jobEnds(1);
      const last = (await seen).at(-1)!;
      assertStringIncludes(last.data, first);
      assert(last.id, "the GET stream's event has no id");
      // The second job ends while the stream is gone; resuming from the last id delivers it.
      const second = await jobEnds(2);
      const resumed = await fetch(server.url, {
        headers: { ...headers, Accept: "text/event-stream", "Last-Event-ID": last.id },
      });
      assertEquals(resumed.status, 200);
      const frames = await readSse(resumed, (d) => d.includes(second));
      assert(frames.some((f) => f.data.includes(second)), JSON.stringify(frames));
    },
  ),
);

Deno.test(
  needs("http: requests without the right bearer token get 401 with WWW-Authenticate", async () => {
    await using server = await startHttpServer();
    const none = await post(server.url, {});
    assertEquals(none.status, 401);
    assertStringIncludes(none.headers.get("www-authenticate") ?? "", "Bearer");
    assertStringIncludes((await none.json()).error.message, "Authorization: Bearer");
    const wrong = await post(server.url, { Authorization: "Bearer wrong-token-0123456789" });
    assertEquals(wrong.status, 401);
    assertStringIncludes(wrong.headers.get("www-authenticate") ?? "", "invalid_token");
    await wrong.body?.cancel();
    // The SDK client gets the 401 as an error too.
    let failed = false;
    try {
      await server.connect("v1", "not-a-token-0123456789");
    } catch {
      failed = true;
    }
    assert(failed, "a client with a wrong token connected");
    const ok = await post(server.url, { Authorization: `Bearer ${TOKEN_B}` });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
  }),
);

Deno.test(
  needs(
    "http: a foreign Host or Origin gets 403 (DNS rebinding), an allowed one passes",
    async () => {
      await using server = await startHttpServer({ args: ["--allow-origin", "mcp.example.com"] });
      const auth = { Authorization: `Bearer ${TOKEN_A}` };
      const host = await rawPost(server.url, { ...auth, Host: "evil.example" });
      assertEquals(host.status, 403);
      assertStringIncludes(host.body, "--allow-origin");
      const origin = await post(server.url, { ...auth, Origin: "https://evil.example" });
      assertEquals(origin.status, 403);
      await origin.body?.cancel();
      const proxied = await rawPost(server.url, {
        ...auth,
        Host: "mcp.example.com",
        Origin: "https://mcp.example.com",
      });
      assertEquals(proxied.status, 200);
    },
  ),
);

Deno.test(
  needs("http: DELETE ends a session and its jobs; the id is then unknown (404)", async () => {
    await using dir = await tempDir();
    await using server = await startHttpServer({
      args: ["--path", dir.path, "--foreground-window", "0.2"],
    });
    const c = await server.connect("v1");
    const marker = uniqueMarker();
    const r = await c.call("shell", { command: `sleep ${marker} & wait` });
    jobIdOf(r.raw);
    assert(await eventually(() => livePidsMatching(marker).length >= 1));
    const sessionId = c.transport.sessionId as string;
    await c.transport.terminateSession();
    assert(await eventually(() => livePidsMatching(marker).length === 0), "the job survived");
    const after = await post(server.url, {
      Authorization: `Bearer ${TOKEN_A}`,
      "Mcp-Session-Id": sessionId,
      "Mcp-Protocol-Version": "2025-11-25",
    }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    assertEquals(after.status, 404);
    assertStringIncludes((await after.json()).error.message, "initialize");
  }),
);

Deno.test(
  needs("http: a session idle longer than --idle-timeout ends (404 afterwards)", async () => {
    await using server = await startHttpServer({ args: ["--idle-timeout", "0.5"] });
    const c = await server.connect("v1");
    assertEquals((await c.call("workdir", {})).isError, false);
    const sessionId = c.transport.sessionId as string;
    assert(await eventually(() => server.stderr().includes(`session ${sessionId} ended`), 10_000));
    const after = await post(server.url, {
      Authorization: `Bearer ${TOKEN_A}`,
      "Mcp-Session-Id": sessionId,
      "Mcp-Protocol-Version": "2025-11-25",
    }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    assertEquals(after.status, 404);
    await after.body?.cancel();
  }),
);

Deno.test(
  needs("http: the session cap and the body size limit answer with clear errors", async () => {
    await using server = await startHttpServer({
      args: ["--max-sessions", "1", "--max-body-bytes", "2000"],
    });
    const auth = { Authorization: `Bearer ${TOKEN_A}` };
    const first = await post(server.url, auth);
    assertEquals(first.status, 200);
    await first.body?.cancel();
    // Its open GET stream makes the session busy: nothing can make room for a second one.
    const stream = await fetch(server.url, {
      headers: {
        ...auth,
        Accept: "text/event-stream",
        "Mcp-Session-Id": first.headers.get("mcp-session-id")!,
        "Mcp-Protocol-Version": "2025-11-25",
      },
    });
    assertEquals(stream.status, 200);
    const second = await post(server.url, auth);
    assertEquals(second.status, 503);
    assertStringIncludes((await second.json()).error.message, "--max-sessions");
    const big = await post(server.url, auth, {
      ...INIT,
      params: { ...INIT.params, clientInfo: { name: "x".repeat(5000), version: "1" } },
    });
    assertEquals(big.status, 413);
    assertStringIncludes((await big.json()).error.message, "--max-body-bytes");
    await stream.body?.cancel();
  }),
);

Deno.test(needs("http: SIGTERM ends sessions and their jobs, and the server exits 0", async () => {
  await using dir = await tempDir();
  await using server = await startHttpServer({
    args: ["--path", dir.path, "--foreground-window", "0.2"],
  });
  const c = await server.connect("v1");
  const marker = uniqueMarker();
  jobIdOf((await c.call("shell", { command: `sleep ${marker} & wait` })).raw);
  assert(await eventually(() => livePidsMatching(marker).length >= 1));
  assertEquals(await server.stop("SIGTERM"), 0);
  assert(await eventually(() => livePidsMatching(marker).length === 0), "a job survived");
  await c.close();
}));

Deno.test(needs("http: binding a non-loopback address needs --http-public", async () => {
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "main.ts", "mcp", "--http", "0.0.0.0:0"],
    cwd: REPO_ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(child.code, 2);
  assertStringIncludes(new TextDecoder().decode(child.stderr), "--http-public");
}));
