// The 2025-era session table under many agents, through the real server: one-shot clients that
// never DELETE do not lock others out (the least recently used idle session makes room and hears
// why), 503 only when every session is busy, each token its own share, short expiry for sessions
// that never open a stream, a reused request id answered, resumable GET streams (priming event,
// Last-Event-ID) and a resume past the replay window told that events were dropped.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { type HttpClient, startHttpServer, TOKEN_A, TOKEN_B } from "./_http_harness.ts";
import { openRawSession, post, readSse } from "./_raw_session.ts";
import { eventually, pathExists, pause } from "../_jobs_helpers.ts";
import { needing } from "../../_requires.ts";

const needs = needing("bash");

Deno.test(
  needs(
    "http sessions: v1 one-shot clients that never DELETE do not lock out the next ones; the evicted session hears why",
    async () => {
      await using server = await startHttpServer({
        args: ["--max-sessions", "3"],
        tokens: [TOKEN_A],
      });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        // A client's close() drops its GET stream; the server may see that an instant after the next
        // client's initialize, so a 503 in that instant is retried (bounded), never accepted as final.
        // One attempt at a time: attempts started side by side (a poll that fires a new connect while
        // the last is still on its way, as under load) would take sessions of their own and evict
        // each other's, this client's included.
        let c: HttpClient | undefined;
        const deadline = Date.now() + 20_000;
        let lastError: unknown;
        while (!c && Date.now() < deadline) {
          c = await server.connect("v1").catch((e) => {
            lastError = e;
            return undefined;
          });
          if (!c) await new Promise((r) => setTimeout(r, 100));
        }
        assert(c, `client ${i + 1} never got a session (${lastError}):\n${server.stderr()}`);
        assertEquals((await c!.call("workdir", {})).isError, false);
        ids.push(c!.transport.sessionId as string);
        await c!.close(); // no DELETE, as the TS SDK v1 (Inspector, conformance suite) does
      }
      assertEquals(new Set(ids).size, 6);
      assertStringIncludes(server.stderr(), `session ${ids[0]} ended to make room`);
      const after = await post(server.url, {
        Authorization: `Bearer ${TOKEN_A}`,
        "Mcp-Session-Id": ids[0]!,
        "Mcp-Protocol-Version": "2025-11-25",
      }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      assertEquals(after.status, 404);
      const message = (await after.json()).error.message as string;
      assertStringIncludes(message, "to make room");
      assertStringIncludes(message, "least recently used idle");
      assertStringIncludes(message, "initialize");
    },
  ),
);

Deno.test(
  needs(
    "http sessions: 503 only when every session of the token is busy (open stream, running job), and it says so",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--max-sessions", "2", "--foreground-window", "0.2"],
        tokens: [TOKEN_A],
      });
      const listening = await openRawSession(server.url, TOKEN_A);
      const stream = await listening.listen();
      assertEquals(stream.status, 200);
      const working = await openRawSession(server.url, TOKEN_A);
      const job = await working.tool(2, "shell", {
        command: "until [ -f stop-now ]; do sleep 0.05; done",
      });
      const jobId = /anchorfs:\/\/jobs\/([\w-]+)/.exec(job)![1]!;
      const refused = await post(server.url, { Authorization: `Bearer ${TOKEN_A}` }, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "x", version: "1" },
        },
      });
      assertEquals(refused.status, 503);
      assert(refused.headers.get("retry-after"), "no Retry-After");
      const text = (await refused.json()).error.message as string;
      assertStringIncludes(text, "every one is busy");
      assertStringIncludes(text, "DELETE");
      // Both still work: neither was ended to make room.
      assertStringIncludes(await working.tool(3, "workdir", {}), "Working directory");
      // The job ends: that session is idle now, and the next session takes its place.
      await Deno.writeTextFile(`${dir.path}/stop-now`, "");
      await working.tool(4, "jobs", { action: "wait", id: jobId });
      const third = await openRawSession(server.url, TOKEN_A);
      assertStringIncludes(await third.tool(2, "workdir", {}), "Working directory");
      assertStringIncludes(
        (await working.call(5, "tools/list")).at(-1)!.data,
        "to make room",
      );
      await stream.body?.cancel();
    },
  ),
);

Deno.test(
  needs(
    "http sessions: each token has its own share of --max-sessions; one token's load never refuses another's first session",
    async () => {
      await using server = await startHttpServer({ args: ["--max-sessions", "4"] });
      // Token A keeps every session busy with an open stream.
      const streams: Response[] = [];
      let refusedA = 0;
      for (let i = 0; i < 4; i++) {
        try {
          const s = await openRawSession(server.url, TOKEN_A);
          streams.push(await s.listen());
        } catch (e) {
          assertStringIncludes((e as Error).message, "503");
          refusedA++;
        }
      }
      assertEquals([streams.length, refusedA], [2, 2]);
      const b = await openRawSession(server.url, TOKEN_B);
      assertStringIncludes(await b.tool(2, "workdir", {}), "Working directory");
      for (const s of streams) await s.body?.cancel();
    },
  ),
);

Deno.test(
  needs(
    "http sessions: a session that never opened its GET stream ends after --unstreamed-timeout; one with a stream stays",
    async () => {
      await using server = await startHttpServer({ args: ["--unstreamed-timeout", "0.5"] });
      const oneShot = await openRawSession(server.url, TOKEN_A);
      const listener = await openRawSession(server.url, TOKEN_A);
      const stream = await listener.listen();
      assert(
        await eventually(() => server.stderr().includes(`session ${oneShot.id} ended`), 10_000),
        server.stderr(),
      );
      assertStringIncludes(server.stderr(), "never opened its GET stream");
      const gone = (await oneShot.call(5, "tools/list")).at(-1)!.data;
      assertStringIncludes(gone, "404");
      assertStringIncludes(gone, "--unstreamed-timeout");
      assertStringIncludes(await listener.tool(2, "workdir", {}), "Working directory");
      await stream.body?.cancel();
    },
  ),
);

Deno.test(
  needs(
    "http sessions: a request id reused while the first is in flight gets 409 naming the reuse; the first is answered",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "20"],
      });
      const s = await openRawSession(server.url, TOKEN_A);
      const first = s.tool(7, "shell", {
        command: "touch started; until [ -f go-on ]; do sleep 0.05; done; echo first",
      });
      // The first call is in flight once its command runs.
      assert(await eventually(() => pathExists(`${dir.path}/started`), 10_000), "never started");
      const reused = await post(server.url, s.headers, {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "workdir", arguments: {} },
      });
      assertEquals(reused.status, 409);
      const body = await reused.json();
      assertEquals(body.id, 7);
      assertStringIncludes(body.error.message, "request id 7 is already in flight");
      await Deno.writeTextFile(`${dir.path}/go-on`, "");
      assertStringIncludes(await first, "first");
    },
  ),
);

Deno.test(
  needs(
    "http sessions: a GET stream starts with a priming event (id, retry); resuming from it replays what came after",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2"],
      });
      const s = await openRawSession(server.url, TOKEN_A);
      const stream = await s.listen();
      const [priming] = await readSse(stream, () => true);
      assert(priming?.id, `no id on the first frame: ${JSON.stringify(priming)}`);
      assertEquals(priming.retry, "2000");
      assertEquals(priming.data, "");
      // The stream is gone (read cancelled it); a job ends meanwhile.
      const job = await s.tool(2, "shell", { command: `${pause(0.3)}; echo resumed-job` });
      const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(job)![1]!;
      await s.tool(3, "jobs", { action: "wait", id });
      const resumed = await s.listen(priming.id);
      assertEquals(resumed.status, 200);
      const frames = await readSse(resumed, (f) => f.data.includes(`anchorfs://jobs/${id}`));
      assert(frames.some((f) => f.data.includes("resources/updated")), JSON.stringify(frames));
    },
  ),
);

Deno.test(
  needs(
    "http sessions: replay is bounded in bytes; resuming past the window says events were dropped",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "5"],
      });
      const s = await openRawSession(server.url, TOKEN_A);
      const stream = await s.listen();
      const [priming] = await readSse(stream, () => true);
      const job = await s.tool(2, "shell", { command: "head -c 1048576 /dev/zero | tr '\\0' a" });
      const id = /anchorfs:\/\/jobs\/([\w-]+)/.exec(job)?.[1];
      // 10 answers of ~1 MiB each: more than the 8 MiB a session keeps for replay.
      for (let i = 0; i < 10; i++) {
        const text = id
          ? await s.tool(10 + i, "jobs", { action: "read", id, bytes: 1048576 })
          : await s.tool(10 + i, "view", { path: "anchorfs://jobs/none" });
        assert(
          text.length > 1_000_000,
          `answer ${i} is ${text.length} characters: ${text.slice(0, 300)}`,
        );
      }
      const resumed = await s.listen(priming!.id);
      assertEquals(resumed.status, 200);
      const frames = await readSse(resumed, (f) => f.data.includes("Events were dropped"));
      const note = JSON.parse(frames.find((f) => f.data.includes("Events were dropped"))!.data);
      assertEquals([note.method, note.params.level], ["notifications/message", "warning"]);
      assertStringIncludes(note.params.data, "8 MiB per session");
      assertStringIncludes(note.params.data, 'jobs {"action":"list"}');
      // The fresh stream has its own priming event to resume from.
      assert(frames.some((f) => f.id && f.retry === "2000"), JSON.stringify(frames));
    },
  ),
);
