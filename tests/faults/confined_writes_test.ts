// Writes of a confined server (--allow) at the moments another program changes what a name
// leads to, each moment held open by strace: the folder swapped for another while the write
// lock's flock is being taken (the lock must be on the folder the write then uses, never one
// found by its path text before the swap), and a rename-save over a hard-linked name while its
// recovery copy is written (the in-place write must notice the name no longer leads to the
// inode it holds). Through the real server; the unconfined server runs the second case too.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, type TestServer } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { exchange } from "../../lib/backends/local/rename_exchange.ts";
import { LocalWriteLocks } from "../../lib/backends/local/write_lock.ts";
import { denoDir, straceHolding as held } from "./_writers.ts";

const needs = needing("posix-fs", "proc", "strace", "linux-ffi");

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `pid` and every process below it (strace's child is the server). */
function family(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: Deno.DirEntry[] = [];
    try {
      tasks = [...Deno.readDirSync(`/proc/${out[i]}/task`)];
    } catch { /* gone */ }
    for (const t of tasks) {
      try {
        const kids = Deno.readTextFileSync(`/proc/${out[i]}/task/${t.name}/children`);
        for (const k of kids.split(" ").filter((x) => x !== "")) out.push(Number(k));
      } catch { /* gone */ }
    }
  }
  return out;
}

/** The server's descriptors that lead to `target` now ("pid/fd" each). */
function descriptorsOn(server: TestServer, target: string): string[] {
  const found: string[] = [];
  for (const pid of family(server.pid!)) {
    let fds: Deno.DirEntry[] = [];
    try {
      fds = [...Deno.readDirSync(`/proc/${pid}/fd`)];
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (Deno.readLinkSync(`/proc/${pid}/fd/${fd.name}`) === target) {
          found.push(`${pid}/${fd.name}`);
        }
      } catch { /* closed meanwhile */ }
    }
  }
  return found;
}

/**
 * Resolves once the server has held a descriptor on `target` for `ms` (a lock's folder waiting
 * for its flock, not the instant open of a lookup); `stop` ends the wait early (false).
 */
async function heldOpen(
  server: TestServer,
  target: string,
  ms: number,
  stop: Promise<unknown>,
): Promise<boolean> {
  let stopped = false;
  stop.then(() => (stopped = true), () => (stopped = true));
  const until = Date.now() + 120_000; // generous: a loaded machine starts deno slowly
  while (!stopped && Date.now() < until) {
    const first = descriptorsOn(server, target);
    if (first.length > 0) {
      await pause(ms);
      if (descriptorsOn(server, target).some((d) => first.includes(d))) return true;
    } else await pause(5);
  }
  return false;
}

Deno.test(
  needs(
    "a confined server's write lock is on the folder it writes in, even when that folder is swapped while the flock is taken",
    async () => {
      // PROJ/sub (folder A) and PROJ/sub2 (folder B) hold the same f.txt. This process holds the
      // write lock of folder B, as another anchorfs writer would while editing B/f.txt. The server
      // edits sub/f.txt with every flock held 1.5 s at its entry; while it waits for A's flock, A and
      // B trade names, so sub/f.txt is then B's file: the server must not write it until B's lock
      // is free. Before, it locked A (found by its path text) and wrote into B while B was locked.
      await using dir = await tempDir("anchorfs-confined-lock-");
      const proj = `${dir.path}/proj`;
      for (const sub of ["sub", "sub2"]) {
        await Deno.mkdir(`${proj}/${sub}`, { recursive: true });
        await Deno.writeTextFile(`${proj}/${sub}/f.txt`, "one\n");
      }
      await using server = await startServer({
        client: "v1",
        cwd: proj,
        args: ["--allow", proj, "--no-shell"],
        env: { DENO_DIR: await denoDir() },
        launcher: held(["flock"], 1500),
      });
      let holding = true;
      let answeredWhileHeld = false;
      let answer: Promise<{ text: string; isError: boolean }> | undefined;
      await new LocalWriteLocks({ waitMs: 60_000 }).run(`${proj}/sub2/f.txt`, async () => {
        const before = await Deno.readTextFile(`${proj}/sub2/f.txt`); // our edit's read
        answer = server.call("text_editor", {
          command: "str_replace",
          path: "sub/f.txt",
          old_text: "one",
          new_text: "two",
        });
        const answered = answer.then(() => (answeredWhileHeld ||= holding));
        assert(
          await heldOpen(server, `${proj}/sub`, 200, answered),
          "the server never took a lock",
        );
        assertEquals(exchange(`${proj}/sub`, `${proj}/sub2`), { done: true });
        // Folder B is at sub now: wait until the server answers, or waits for B's flock (a
        // descriptor on B held for a while), or 15 s pass.
        await Promise.race([
          answered,
          heldOpen(server, `${proj}/sub`, 300, answered),
          pause(15_000),
        ]);
        await Deno.writeTextFile(`${proj}/sub/f.txt`, `${before}held\n`); // our edit, then release
        holding = false;
      });
      const r = await answer!;
      assertEquals(answeredWhileHeld, false, `answered while folder B's lock was held: ${r.text}`);
      assertEquals(r.isError, false, r.text);
      assertEquals(await Deno.readTextFile(`${proj}/sub/f.txt`), "two\nheld\n");
      assertEquals(await Deno.readTextFile(`${proj}/sub2/f.txt`), "one\n", "folder A untouched");
    },
  ),
);

for (const confined of [false, true]) {
  Deno.test(needs(
    `a rename-save over a hard-linked name while its recovery copy is written: FILE_CHANGED, not a false "Edited"${
      confined ? " (confined: --allow DIR)" : ""
    }`,
    async () => {
      // shared.txt has a second name, so an edit writes its inode in place after a recovery copy
      // (its fsync held 1 s here). A program saves shared.txt by rename meanwhile: the name leads
      // to its new file, the old inode only to second.txt. Writing the old inode would answer
      // "Edited" for a shared.txt that does not have the edit.
      await using dir = await tempDir("anchorfs-linked-save-");
      await Deno.writeTextFile(`${dir.path}/shared.txt`, "one\n");
      await Deno.link(`${dir.path}/shared.txt`, `${dir.path}/second.txt`);
      await using server = await startServer({
        client: "v1",
        cwd: dir.path,
        args: confined ? ["--allow", dir.path, "--no-shell"] : ["--no-shell"],
        env: { DENO_DIR: await denoDir() },
        launcher: held(["fsync", "fdatasync"], 1000),
      });
      const answer = server.call("text_editor", {
        command: "str_replace",
        path: "shared.txt",
        old_text: "one",
        new_text: "two",
      });
      let done = false;
      answer.then(() => (done = true), () => (done = true));
      const copying = /^\.shared\.txt\.anchorfs-\d+-\d+\.tmp$|\.orig$/;
      const until = Date.now() + 120_000;
      while (!done && Date.now() < until) {
        if ([...Deno.readDirSync(dir.path)].some((e) => copying.test(e.name))) break;
        await pause(5);
      }
      assert(!done, "answered before its recovery copy was seen");
      await Deno.writeTextFile(`${dir.path}/.shared.txt.swp`, "theirs\n");
      await Deno.rename(`${dir.path}/.shared.txt.swp`, `${dir.path}/shared.txt`);
      const r = await answer;
      assert(r.isError, `answered: ${r.text}`);
      assertStringIncludes(r.text, "changed on disk");
      assertEquals(await Deno.readTextFile(`${dir.path}/shared.txt`), "theirs\n");
      assertEquals(await Deno.readTextFile(`${dir.path}/second.txt`), "one\n", "nothing written");
      assertEquals(
        [...Deno.readDirSync(dir.path)].map((e) => e.name).sort(),
        ["second.txt", "shared.txt"],
      );
    },
  ));
}
