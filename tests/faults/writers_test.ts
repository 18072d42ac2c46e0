// Faults around writing: several real server processes editing one file at once must never lose
// an answered edit; a writer killed with SIGKILL mid-write leaves the old or the new file, and its
// temp file is never listed and is removed by the next write in that folder.

import { startServer, tempDir } from "../_harness.ts";
import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import {
  mixedEnvs,
  OUTSIDE_KINDS,
  type OutsideKind,
  runWriters,
  type WritersOptions,
} from "./_writers.ts";
import { needing } from "../_requires.ts";

const needsStrace = needing("bash", "posix-fs", "strace");

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

/** Every rename the processes make held 15 ms at its entry, as on a busy machine. */
const SLOW_RENAMES = { syscalls: ["rename", "renameat", "renameat2"], ms: 15 };

const needsStraceConfined = needing("bash", "posix-fs", "strace", "linux-ffi");

/** Unconfined, and confined with --allow DIR (every path opened beneath it, confined_local.ts). */
const MODES = [
  { label: "", confined: false, register: needsStrace },
  { label: " (confined: --allow DIR)", confined: true, register: needsStraceConfined },
] as const;

for (const mode of MODES) {
  Deno.test(mode.register(
    `4 servers in 4 different environments and \`anchorfs edit\` runs in a 5th: no answered edit is lost${mode.label}`,
    async () => {
      // HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME and TMPDIR set elsewhere or unset: a desktop
      // client's server next to a terminal's. The lock must be the file's, whatever each
      // process's environment; the held renames make any gap in it show.
      await using dir = await tempDir();
      await using scratch = await tempDir("anchorfs-writers-envs-");
      const r = await runWriters({
        dir: dir.path,
        processes: 4,
        edits: 5,
        rounds: 3,
        lines: 24,
        cli: 4,
        envs: await mixedEnvs(scratch.path),
        slow: SLOW_RENAMES,
        confined: mode.confined,
      });
      assertEquals(r.lostPerRound, [0, 0, 0], JSON.stringify(r.lostBy));
      assertEquals(r.otherCount, 0, r.other.join("\n---\n"));
      assertEquals(r.answered + r.changed, r.sent);
      assertEquals(r.landed, r.answered);
      assert((r.answeredBy.cli ?? 0) > 0, "no anchorfs edit run was answered");
    },
  ));
}

/** Outside writers race the edits with rename(2) and renameat(2) held 15 ms; no outside write may be lost. */
async function raceOutside(kind: OutsideKind, more: Partial<WritersOptions>): Promise<void> {
  await using dir = await tempDir();
  const r = await runWriters({
    dir: dir.path,
    processes: 3,
    edits: 4,
    rounds: 3,
    lines: 12,
    outside: { kind, writes: 400 },
    slow: { syscalls: ["rename", "renameat"], ms: 15 },
    ...more,
  });
  assert(r.outsideWrites > 0, "the outside writer wrote nothing");
  assertEquals(r.outsideLost, 0, `${r.outsideLost} of ${r.outsideWrites} outside writes lost`);
  // An outside read-modify-write may itself overwrite an edit answered before it (nothing
  // anchorfs can prevent); an append never does.
  if (kind === "append") assertEquals(r.lost, 0);
  if (more.links) assertEquals((await Deno.stat(`${dir.path}/shared.txt`)).nlink, 2, "one file");
}

for (const mode of MODES) {
  for (const kind of OUTSIDE_KINDS) {
    Deno.test(mode.register(
      `an outside writer (${kind}) racing 3 servers' edits: no outside write is lost${mode.label}`,
      // rename(2) and renameat(2) are held 15 ms: the last step of a write that renames after its final check, so
      // an outside write lands in that gap often. A write that swaps the file in (renameat2) and
      // then checks what it swapped out has no such gap to hold open.
      () => raceOutside(kind, { confined: mode.confined }),
    ));
  }

  for (const kind of ["append", "overwrite"] as const) {
    Deno.test(mode.register(
      `an outside writer (${kind}) racing in-place edits of a hard-linked file: no outside write is lost${mode.label}`,
      // A hard-linked file is written in place after a recovery copy is made (its rename and every
      // fsync held 15 ms here): the content is compared again after the copy, just before the
      // overwrite; a write landing after the overwrite is never undone by a restore.
      () =>
        raceOutside(kind, {
          processes: 2,
          lines: 8,
          links: ["second-name.txt"],
          slow: { syscalls: ["rename", "fsync"], ms: 15 },
          confined: mode.confined,
        }),
    ));
  }
}

Deno.test("the server says at start-up how local writes replace a file", async () => {
  await using dir = await tempDir();
  const server = await startServer({ client: "v1", cwd: dir.path });
  await server.call("view", { path: "." });
  await server.close();
  const line = server.stderr().split("\n").find((l) => l.startsWith("anchorfs mcp: local writes"));
  assert(line !== undefined, server.stderr());
  if (Deno.build.os === "linux") assertStringIncludes(line, "swap the new file in (renameat2");
  else assertStringIncludes(line, "rename right after a final content check");
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
