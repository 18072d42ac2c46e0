// The command docs/server.md gives for running anchorfs from a checkout is real: read from the
// page, with the placeholders filled in, it starts a server that answers `initialize` on stdout
// (nothing else printed there), and the task it runs carries the binaries' V8 flags.

import { assert, assertEquals } from "../_assert.ts";
import { REPO_ROOT, tempDir } from "../_harness.ts";
import { V8_FLAGS } from "../../scripts/release/compile.ts";

Deno.test("docs/server.md's checkout command starts the server with the binaries' V8 flags", async () => {
  const page = await Deno.readTextFile(`${REPO_ROOT}/docs/server.md`);
  const found = /`"args": (\["task", "-q", "--config", [^\]]*\])`/.exec(page);
  assert(found, "the checkout command is on the page");
  await using dir = await tempDir();
  const args = (JSON.parse(found[1]!) as string[]).map((a) =>
    a.replace("/path/to/anchorfs", REPO_ROOT).replace("/path/to/project", dir.path)
  );
  const tasks = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`)).tasks;
  assert(tasks[args[4]!].includes(`--v8-flags=${V8_FLAGS}`), `task ${args[4]}`);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir.path,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }) + "\n",
  ));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  await writer.close();
  await reader.cancel();
  await child.status;
  const first = JSON.parse(out.slice(0, out.indexOf("\n")));
  assertEquals([first.id, first.result?.serverInfo?.name], [1, "anchorfs"]);
});
