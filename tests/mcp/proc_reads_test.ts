// /proc files through the real server: /proc/self/pagemap states 0 bytes and reads for
// gigabytes, /proc/kmsg (root) waits for the next kernel message instead of ending. Each call
// must answer at once and leave the server answering. A watchdog kills the server when it
// passes a memory cap or a deadline, so a regression fails these tests instead of hanging them
// or filling the machine's memory.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, type TestServer } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { RawServer, replyIsError, replyText } from "../../scripts/bench/_reliability_server.ts";

const needs = needing("proc");
const isRoot = Deno.uid() === 0;

/** Kills the server (SIGKILL) past `seconds` or `rssMb`: its pending calls then fail. */
function watchdog(pid: number, seconds: number, rssMb: number): { reason(): string; stop(): void } {
  let fired = "";
  const started = Date.now();
  const timer = setInterval(() => {
    let rssKb = 0;
    try {
      rssKb = Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1]);
    } catch { /* gone */ }
    if (rssKb > rssMb * 1024) fired = `RSS passed ${rssMb} MB`;
    else if (Date.now() - started > seconds * 1000) fired = `no end after ${seconds} s`;
    else return;
    clearInterval(timer);
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }, 50);
  return { reason: () => fired, stop: () => clearInterval(timer) };
}

/** A call that must answer; the watchdog's verdict is named when it does not. */
async function answer(
  server: TestServer,
  dog: { reason(): string },
  name: string,
  args: Record<string, unknown>,
) {
  try {
    return await server.call(name, args, { timeout: 60_000 });
  } catch (e) {
    throw new Error(`${name} ${JSON.stringify(args)} got no answer (${dog.reason() || e})`);
  }
}

Deno.test(
  needs(
    "view of /proc/self/pagemap (0 bytes by stat, endless in fact) is FILE_TOO_LARGE at once",
    async () => {
      await using server = await startServer({ client: "v2", args: ["--max-file-bytes", "4M"] });
      const dog = watchdog(server.pid!, 90, 800);
      try {
        const r = await answer(server, dog, "view", { path: "/proc/self/pagemap" });
        assert(r.isError, r.text);
        assertStringIncludes(r.text, '"/proc/self/pagemap" holds more than 4.0 MB');
        assertStringIncludes(r.text, "its size on disk says 0 bytes");
        // A search that meets it skips it, and the server goes on answering.
        const found = await answer(server, dog, "view", {
          path: "/proc/self",
          content: "zzqqxx",
          max_depth: 1,
        });
        assert(!found.isError, found.text);
        const status = await answer(server, dog, "view", { path: "/proc/self/status", start: 1 });
        assertStringIncludes(status.text, "Name:");
      } finally {
        dog.stop();
      }
    },
  ),
);

Deno.test(
  needs(
    "/proc/kmsg and /proc at depth 1 answer at once, and the next call still answers",
    async () => {
      await using server = await startServer({ client: "v2" });
      const dog = watchdog(server.pid!, 90, 800);
      try {
        const kmsg = await answer(server, dog, "view", { path: "/proc/kmsg" });
        assert(kmsg.isError, kmsg.text);
        // As root it opens, and a read would wait for the next kernel message; others may not open it.
        assertStringIncludes(
          kmsg.text,
          isRoot ? "reading it would wait for data that may never come" : "Permission denied",
        );
        if (isRoot) assertStringIncludes(kmsg.text, 'shell {"command":"timeout 5 head -c 65536');
        for (const args of [{}, { content: "zzqqxx" }]) {
          const r = await answer(server, dog, "view", { path: "/proc", max_depth: 1, ...args });
          assert(!r.isError, r.text);
          assert(/\b(files|searched)\b/.test(r.text), r.text);
        }
        const listing = await answer(server, dog, "view", { path: "/proc", max_depth: 1 });
        const row = listing.text.split("\n").find((line) => line.startsWith("kmsg\t"));
        if (isRoot) {
          assertStringIncludes(
            row ?? "",
            'unreadable: Cannot read "/proc/kmsg": reading',
          );
        }
        assertEquals((await answer(server, dog, "workdir", {})).isError, false);
      } finally {
        dog.stop();
      }
    },
  ),
);

Deno.test(
  needs(
    "after /proc/kmsg and a /proc listing the server still exits when stdin closes",
    async () => {
      const server = await RawServer.start({ rssCapMb: 800 });
      try {
        for (
          const args of [
            { path: "/proc/kmsg" },
            { path: "/proc", max_depth: 1 },
            { path: "/proc", max_depth: 1, content: "zzqqxx" },
          ]
        ) {
          const reply = await server.call("view", args, 60_000);
          assert(reply !== undefined, `no answer to view ${JSON.stringify(args)}`);
          assertEquals(replyIsError(reply), args.path === "/proc/kmsg", replyText(reply));
        }
      } finally {
        await server.close(10_000);
      }
      // close() waits for the exit after stdin closes, and kills only a server still running then.
      assertEquals(server.exitCode, 0, server.stderrTail);
    },
  ),
);
