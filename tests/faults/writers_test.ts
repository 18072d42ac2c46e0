// Faults around writing: several real server processes editing one file at once must never lose
// an answered edit; a writer killed with SIGKILL mid-write leaves the old or the new file, and its
// temp file is never listed and is removed by the next write in that folder.

import { startServer, tempDir } from "../_harness.ts";
import { assert, assertEquals, assertNotIncludes } from "../_assert.ts";
import { runWriters } from "./_writers.ts";

Deno.test("3 server processes × 6 edits on distinct lines, 3 rounds: no answered edit is lost", async () => {
  await using dir = await tempDir();
  const r = await runWriters({ dir: dir.path, processes: 3, edits: 6, rounds: 3, lines: 24 });
  assertEquals(r.lostPerRound, [0, 0, 0]);
  assertEquals(r.otherCount, 0, r.other.join("\n---\n"));
  assertEquals(r.answered + r.changed, r.sent);
  assertEquals(r.landed, r.answered);
});

Deno.test("3 server processes editing one file through 3 hard-linked names: no answered edit is lost", async () => {
  await using dir = await tempDir();
  const r = await runWriters({
    dir: dir.path,
    processes: 3,
    edits: 6,
    rounds: 3,
    lines: 24,
    links: ["second-name.txt", "third-name.txt"],
  });
  assertEquals(r.lostPerRound, [0, 0, 0]);
  assertEquals(r.otherCount, 0, r.other.join("\n---\n"));
  assertEquals(r.answered + r.changed, r.sent);
  assertEquals(r.landed, r.answered);
  assertEquals((await Deno.stat(`${dir.path}/shared.txt`)).nlink, 3, "still one file");
});

const TEMP = /\.anchorfs-\d+(-\d+)+\.tmp$/;

function temps(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => TEMP.test(n));
}

Deno.test("kill -9 mid-write leaves the old or the new file; its temp file is hidden, then cleaned", async () => {
  await using dir = await tempDir();
  const line = "x".repeat(99);
  const old = `head\n${`${line}\n`.repeat(300_000)}`; // 30 MB: the write takes a while
  const fresh = old.replace("head\n", "HEAD\n");
  await Deno.writeTextFile(`${dir.path}/big.txt`, old);
  let leftover: string[] = [];
  for (let attempt = 0; attempt < 6 && leftover.length === 0; attempt++) {
    await Deno.writeTextFile(`${dir.path}/big.txt`, old);
    // 30 MB is above the default --max-file-bytes (16 MiB): raise it for this slow write.
    const server = await startServer({
      client: "v1",
      cwd: dir.path,
      args: ["--max-file-bytes", "64M"],
    });
    try {
      const call = server.call("text_editor", {
        command: "str_replace",
        path: "big.txt",
        old_text: "head",
        new_text: "HEAD",
      }).catch(() => null);
      // Kill as soon as the temp file appears, i.e. in the middle of the write.
      const until = Date.now() + 20_000;
      while (temps(dir.path).length === 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      Deno.kill(server.pid!, "SIGKILL");
      await call;
    } finally {
      await server.close();
    }
    const now = await Deno.readTextFile(`${dir.path}/big.txt`);
    assert(now === old || now === fresh, "the file is neither the old nor the new version");
    leftover = temps(dir.path);
  }
  assert(leftover.length > 0, "no kill landed mid-write in 6 attempts");

  const server = await startServer({ client: "v2", cwd: dir.path });
  try {
    // Listed neither as a file nor in search, even with include_hidden.
    const listing = await server.call("view", { path: ".", include_hidden: true });
    assertEquals(listing.isError, false, listing.text);
    assertNotIncludes(listing.text, ".anchorfs-");
    assertNotIncludes(listing.text, ".tmp");
    const search = await server.call("view", {
      path: ".",
      content: "xxxxx",
      include_hidden: true,
    });
    assertNotIncludes(search.text, ".anchorfs-");
    // The next write in that folder removes it.
    const created = await server.call("text_editor", {
      command: "create",
      path: "other.txt",
      file_text: "other\n",
    });
    assertEquals(created.isError, false, created.text);
    assertEquals(temps(dir.path), []);
  } finally {
    await server.close();
  }
});
