// Two agents of one HTTP server do not see each other's state: jobs (the jobs tool, the
// anchorfs://jobs/ID log files view and search read, resources/list, completion notifications, the
// channel push, the duplicate guard's refusal), the memory of shown lines and the undo history.
// v1: two sessions of one token; v2 (no transport session): two tokens.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { CLIENT_KINDS, type ClientKind, tempDir, writeTree } from "../../_harness.ts";
import { type HttpServer, startHttpServer, TOKEN_A, TOKEN_B } from "./_http_harness.ts";
import { eventually, jobIdOf, pause } from "../_jobs_helpers.ts";
import { needing } from "../../_requires.ts";

const needs = needing("bash");

async function twoAgents(server: HttpServer, kind: ClientKind) {
  const a = await server.connect(kind, TOKEN_A);
  const b = await server.connect(kind, kind === "v1" ? TOKEN_A : TOKEN_B);
  return { a, b };
}

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `http isolation (${kind}): another agent's job log cannot be viewed or searched as anchorfs://jobs/ID`,
      async () => {
        await using dir = await tempDir();
        await using server = await startHttpServer({
          args: ["--path", dir.path, "--foreground-window", "0.2"],
        });
        const { a, b } = await twoAgents(server, kind);
        const job = await a.call("shell", { command: `${pause(0.5)}; echo secret-of-a` });
        const id = jobIdOf(job.raw);
        await a.call("jobs", { action: "wait", id });
        const uri = `anchorfs://jobs/${id}`;
        // The owner reads its log as a file.
        assertStringIncludes((await a.call("view", { path: uri })).text, "secret-of-a");

        const bView = await b.call("view", { path: uri });
        assert(bView.isError, bView.text);
        assert(!bView.text.includes("secret-of-a"), bView.text);
        assertStringIncludes(bView.text, "No job with id");

        const bSearch = await b.call("view", { path: uri, content: "secret" });
        assert(!bSearch.text.includes("secret-of-a"), bSearch.text);
        const bRange = await b.call("view", { path: uri, start: 1, end: 5 });
        assert(bRange.isError && !bRange.text.includes("secret-of-a"), bRange.text);

        // An id b never started, asked about: the hint lists b's jobs, never a's.
        const unknown = await b.call("view", { path: "anchorfs://jobs/1-999999" });
        assert(unknown.isError, unknown.text);
        assert(!unknown.text.includes(id), unknown.text);
      },
    ),
  );
}

Deno.test(
  needs(
    "http isolation (v1): another agent's job is not in resources/list, and its end notifies only its owner",
    async () => {
      await using dir = await tempDir();
      await using server = await startHttpServer({
        args: ["--path", dir.path, "--foreground-window", "0.2"],
      });
      const { a, b } = await twoAgents(server, "v1");
      const seen: Record<string, string[]> = { a: [], b: [] };
      for (const [name, c] of [["a", a], ["b", b]] as const) {
        // deno-lint-ignore no-explicit-any
        c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n: any) => {
          seen[name]!.push(`updated ${n.params.uri}`);
        });
        // deno-lint-ignore no-explicit-any
        c.client.fallbackNotificationHandler = (n: any) => {
          seen[name]!.push(`${n.method} ${JSON.stringify(n.params ?? {})}`);
          return Promise.resolve();
        };
      }
      const job = await a.call("shell", { command: `${pause(0.8)}; echo secret-of-a` });
      const id = jobIdOf(job.raw);
      // b subscribing to a's job must not earn b a notification either.
      await b.client.subscribeResource({ uri: `anchorfs://jobs/${id}` }).catch(() => {});
      const bList = await b.client.listResources();
      assert(!JSON.stringify(bList).includes(id), JSON.stringify(bList));
      assert(JSON.stringify(await a.client.listResources()).includes(id));
      const bRead = await b.client.readResource({ uri: `anchorfs://jobs/${id}` }).then(
        (r: unknown) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      assert(!bRead.includes("secret-of-a"), bRead);
      assert(await eventually(() => seen.a!.some((s) => s.includes("claude/channel")), 20_000));
      assert(seen.a!.includes(`updated anchorfs://jobs/${id}`), seen.a!.join("\n"));
      // a's own stream got its messages; b's got none naming a's job.
      await b.call("workdir", {});
      assert(!seen.b!.some((s) => s.includes(id) || s.includes("secret-of-a")), seen.b!.join("\n"));
    },
  ),
);

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `http isolation (${kind}): the duplicate guard refuses another agent's running command without naming its job`,
      async () => {
        await using dir = await tempDir();
        await using server = await startHttpServer({
          args: ["--path", dir.path, "--foreground-window", "0.2"],
        });
        const { a, b } = await twoAgents(server, kind);
        const command = "echo dup-guard; until [ -f stop-now ]; do sleep 0.05; done";
        const job = await a.call("shell", { command });
        const id = jobIdOf(job.raw);
        const bRun = await b.call("shell", { command });
        // Still refused: two runs in one checkout would fight over the same files.
        assert(bRun.isError, bRun.text);
        assertStringIncludes(bRun.text, "already running");
        assert(!bRun.text.includes(id), bRun.text);
        // Nor a's command text or directory: only that a duplicate runs.
        assert(!bRun.text.includes("dup-guard"), bRun.text);
        assert(!bRun.text.includes(dir.path), bRun.text);
        // a's own duplicate still names a's job, as today.
        const aRun = await a.call("shell", { command });
        assertStringIncludes(aRun.text, id);
        await Deno.writeTextFile(`${dir.path}/stop-now`, "");
        await a.call("jobs", { action: "wait", id });
      },
    ),
  );
}

for (const kind of CLIENT_KINDS) {
  Deno.test(
    needs(
      `http isolation (${kind}): the re-view memory, shown lines and undo are per agent`,
      async () => {
        await using dir = await tempDir();
        await writeTree(dir.path, { "f.txt": "one\ntwo\nthree\n" });
        await using server = await startHttpServer({ args: ["--path", dir.path] });
        const { a, b } = await twoAgents(server, kind);
        assertStringIncludes((await a.call("view", { path: "f.txt" })).text, "two");
        assertStringIncludes((await a.call("view", { path: "f.txt" })).text, "unchanged since you");
        // b never viewed it: b gets the whole file, not a's "unchanged".
        const bView = await b.call("view", { path: "f.txt" });
        assertStringIncludes(bView.text, "two");
        assert(!bView.text.includes("since you last viewed"), bView.text);

        // a edits; b's undo has nothing of a's to undo, a's does.
        const edit = await a.call("text_editor", {
          command: "str_replace",
          path: "f.txt",
          old_text: "two",
          new_text: "TWO",
        });
        assertEquals(edit.isError, false, edit.text);
        const bUndo = await b.call("text_editor", { command: "undo_edit", path: "f.txt" });
        assert(bUndo.isError, bUndo.text);
        assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "one\nTWO\nthree\n");
        const aUndo = await a.call("text_editor", { command: "undo_edit", path: "f.txt" });
        assertEquals(aUndo.isError, false, aUndo.text);
        assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "one\ntwo\nthree\n");
      },
    ),
  );
}

Deno.test(
  needs("http isolation (v2): another agent's listen hears nothing of a's job", async () => {
    await using dir = await tempDir();
    await using server = await startHttpServer({
      args: ["--path", dir.path, "--foreground-window", "0.2"],
    });
    const { a, b } = await twoAgents(server, "v2");
    const seen: Record<string, string[]> = { a: [], b: [] };
    for (const [name, c] of [["a", a], ["b", b]] as const) {
      // deno-lint-ignore no-explicit-any
      c.client.setNotificationHandler("notifications/resources/updated", (n: any) => {
        seen[name]!.push(n.params.uri);
      });
      c.client.setNotificationHandler("notifications/resources/list_changed", () => {
        seen[name]!.push("list_changed");
      });
    }
    const job = await a.call("shell", { command: `${pause(0.8)}; echo secret-of-a` });
    const uri = `anchorfs://jobs/${jobIdOf(job.raw)}`;
    const listenA = await a.client.listen({ resourceSubscriptions: [uri] });
    const listenB = await b.client.listen({
      resourcesListChanged: true,
      resourceSubscriptions: [uri],
    });
    assert(await eventually(() => seen.a!.includes(uri), 20_000), seen.a!.join("\n"));
    const bList = await b.client.listResources();
    assert(!JSON.stringify(bList).includes(uri), JSON.stringify(bList));
    await b.call("workdir", {});
    assert(seen.b!.length === 0, seen.b!.join("\n"));
    await listenA.close();
    await listenB.close();
  }),
);
