// Output caps count bytes on the wire: a command flooding NUL or ESC bytes gives a shell result,
// a `jobs read` and a job resource whose whole JSON line stays within the cap plus a small
// header, with the control bytes shown as pictures and the text saying so.

import { assert, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { RawServer } from "./_raw_stdio.ts";
import { needing } from "../_requires.ts";

const needs = needing("bash");

/** The reply to a request, with the byte length of its line exactly as written on stdout. */
async function wireReply(server: RawServer, id: number, method: string, params: unknown) {
  const reply = await server.request(id, method, params as Record<string, unknown>);
  const bytes = new TextEncoder().encode(JSON.stringify(reply)).length;
  const text = JSON.stringify(reply.result ?? reply.error);
  return { reply, bytes, text };
}

/** Room for the report's header lines, notes and the JSON-RPC envelope. */
const OVERHEAD = 2048;

Deno.test(
  needs("NUL- and ESC-flooded job output stays within its byte cap on the wire", async () => {
    await using dir = await tempDir();
    await using state = await tempDir();
    await using server = await RawServer.start(["--path", dir.path, "--state-dir", state.path]);
    const floods = [
      { name: "NUL", command: "head -c 1048576 /dev/zero", picture: "␀" },
      { name: "ESC", command: "yes $'\\e' | tr -d '\\n' | head -c 1048576", picture: "␛" },
    ];
    let id = 10;
    for (const flood of floods) {
      const shell = await wireReply(server, id++, "tools/call", {
        name: "shell",
        arguments: { command: flood.command },
      });
      assert(
        shell.bytes <= 4 * 1024 + OVERHEAD,
        `${flood.name}: shell result is ${shell.bytes} bytes on the wire`,
      );
      assertStringIncludes(shell.text, flood.picture.repeat(100));
      assertStringIncludes(shell.text, "control pictures");
      assertStringIncludes(shell.text, "capped at 4,096 bytes as sent");
      const jobId = /job (\d+-\d+)/.exec(shell.text)?.[1];
      assert(jobId, shell.text.slice(0, 500));

      for (const bytes of [1000, 100_000, 1024 * 1024]) {
        const read = await wireReply(server, id++, "tools/call", {
          name: "jobs",
          arguments: { action: "read", id: jobId, bytes },
        });
        assert(
          read.bytes <= bytes + OVERHEAD,
          `${flood.name}: jobs read of ${bytes} bytes is ${read.bytes} bytes on the wire`,
        );
        assertStringIncludes(read.text, flood.picture.repeat(10));
        assert(
          !read.text.includes("\\u0000") && !read.text.includes("\\u001b"),
          "no 6-byte escapes",
        );
      }

      const resource = await wireReply(server, id++, "resources/read", {
        uri: `anchorfs://jobs/${jobId}`,
      });
      assert(
        resource.bytes <= 4 * 1024 + OVERHEAD,
        `${flood.name}: job resource is ${resource.bytes} bytes on the wire`,
      );
      assertStringIncludes(resource.text, flood.picture.repeat(100));
    }
  }),
);
