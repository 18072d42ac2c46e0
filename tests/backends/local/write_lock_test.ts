// write_lock.ts: the folder flock between real processes and within one, the nearest existing
// folder for a new file, and the lock style per platform.

import { AnchorError } from "../../../lib/core/errors.ts";
import {
  LocalWriteLocks,
  type LockStyle,
  lockStyleFor,
} from "../../../lib/backends/local/write_lock.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { denoDir } from "../../faults/_writers.ts";
import { needing } from "../../_requires.ts";

const HOLDER = new URL("./_hold_lock.ts", import.meta.url).pathname;

/**
 * Starts another process that takes the write lock of `path` and holds it until released; its
 * environment has no HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME or TMPDIR of ours (`env`).
 */
async function holdElsewhere(
  path: string,
  style: LockStyle | "",
  env: Record<string, string>,
  launcher: string[] = [],
) {
  const line = [...launcher, Deno.execPath(), "run", "-A", "--quiet", HOLDER, path, style];
  const child = new Deno.Command(line[0]!, {
    args: line.slice(1),
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", DENO_DIR: await denoDir(), ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assertEquals(new TextDecoder().decode(first.value), "held\n");
  reader.releaseLock();
  return {
    child,
    async release() {
      await child.stdin.close();
      await child.stdout.cancel();
      await child.status;
    },
  };
}

for (const style of ["folder", "beside"] as const) {
  Deno.test(`${style} lock: another process in another environment holds it; we wait, then LOCK_TIMEOUT`, async () => {
    await using dir = await tempDir();
    await using home = await tempDir("anchorfs-other-home-");
    const path = `${dir.path}/held.txt`;
    // The other process: another HOME, its own XDG folders and TMPDIR. Ours stay as they are.
    const holder = await holdElsewhere(path, style, {
      HOME: home.path,
      XDG_RUNTIME_DIR: home.path,
      XDG_STATE_HOME: `${home.path}/state`,
      TMPDIR: home.path,
    });
    try {
      const waiter = new LocalWriteLocks({ style, waitMs: 300 });
      const e = await assertRejects(() => waiter.run(path, () => Promise.resolve("no")));
      assertEquals((e as AnchorError).code, "LOCK_TIMEOUT");
      assertEquals((e as AnchorError).fault, "environment");
      assertStringIncludes((e as AnchorError).message, JSON.stringify(path));
      assertStringIncludes(
        (e as AnchorError).message,
        style === "folder" ? `an flock of its folder ${JSON.stringify(dir.path)}` : "lock file",
      );
    } finally {
      await holder.release();
    }
    // Released: the next holder gets it at once, and nothing is left in the folder.
    assertEquals(await new LocalWriteLocks({ style }).run(path, () => Promise.resolve(1)), 1);
    assertEquals([...Deno.readDirSync(dir.path)], []);
  });
}

Deno.test("folder lock: another process's lock of one file holds up the other files of its folder, not of others", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/sub`);
  const holder = await holdElsewhere(`${dir.path}/a.txt`, "folder", {});
  try {
    const waiter = new LocalWriteLocks({ waitMs: 300 });
    const e = await assertRejects(() => waiter.run(`${dir.path}/b.txt`, () => Promise.resolve()));
    assertEquals((e as AnchorError).code, "LOCK_TIMEOUT");
    assertEquals(await waiter.run(`${dir.path}/sub/b.txt`, () => Promise.resolve("free")), "free");
  } finally {
    await holder.release();
  }
});

Deno.test("folder lock: in one process, other files of a held folder run side by side; one file waits its turn", async () => {
  await using dir = await tempDir();
  const locks = new LocalWriteLocks({ waitMs: 2_000 });
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const first = locks.run(`${dir.path}/a.txt`, async () => {
    order.push("a in");
    entered();
    await gate;
    // A body may lock another file of its own folder (no second flock waiting for the first).
    await locks.run(`${dir.path}/c.txt`, () => Promise.resolve(order.push("c nested")));
    order.push("a out");
  });
  await inside;
  const again = locks.run(`${dir.path}/a.txt`, () => Promise.resolve(order.push("a again")));
  await locks.run(`${dir.path}/b.txt`, () => Promise.resolve(order.push("b")));
  release();
  await Promise.all([first, again]);
  assertEquals(order, ["a in", "b", "c nested", "a out", "a again"]);
  assertEquals([...Deno.readDirSync(dir.path)], [], "nothing made in the folder");
});

Deno.test(
  needing("signals")(
    "beside lock: a lock file left by a holder killed with SIGKILL is taken and removed by the next",
    async () => {
      await using dir = await tempDir();
      const path = `${dir.path}/held.txt`;
      const holder = await holdElsewhere(path, "beside", {});
      holder.child.kill("SIGKILL");
      await holder.child.status;
      await holder.child.stdout.cancel();
      await holder.child.stdin.close().catch(() => {});
      const left = [...Deno.readDirSync(dir.path)].map((e) => e.name);
      assertEquals(left, [".held.txt.anchorfs-lock"]);
      const locks = new LocalWriteLocks({ style: "beside", waitMs: 1_000 });
      assertEquals(await locks.run(path, () => Promise.resolve("taken")), "taken");
      assertEquals([...Deno.readDirSync(dir.path)], []);
    },
  ),
);

/** A launcher under which root cannot read a folder of mode 0333 (capabilities dropped). */
const NO_READ = Deno.uid() === 0
  ? [
    "setpriv",
    "--inh-caps=-dac_override,-dac_read_search",
    "--bounding-set=-dac_override,-dac_read_search",
  ]
  : [];

Deno.test(
  needing("posix-fs")(
    "a folder this process cannot read is not flocked: it locks a file beside the target",
    async (t) => {
      await using dir = await tempDir();
      await Deno.mkdir(`${dir.path}/wx`);
      await Deno.chmod(`${dir.path}/wx`, 0o333);
      try {
        const probe = await new Deno.Command(NO_READ[0] ?? "ls", {
          args: [...NO_READ.slice(1), ...(NO_READ.length > 0 ? ["ls"] : []), `${dir.path}/wx`],
          stdout: "null",
          stderr: "null",
        }).output();
        if (probe.success) {
          await t.step({
            name: "skipped: this user reads a 0333 folder anyway",
            ignore: true,
            fn() {},
          });
          return;
        }
        const holder = await holdElsewhere(`${dir.path}/wx/held.txt`, "", {}, NO_READ);
        try {
          await Deno.chmod(`${dir.path}/wx`, 0o755);
          assertEquals([...Deno.readDirSync(`${dir.path}/wx`)].map((e) => e.name), [
            ".held.txt.anchorfs-lock",
          ]);
          await Deno.chmod(`${dir.path}/wx`, 0o333);
        } finally {
          await holder.release();
        }
        await Deno.chmod(`${dir.path}/wx`, 0o755);
        assertEquals([...Deno.readDirSync(`${dir.path}/wx`)], []);
      } finally {
        await Deno.chmod(`${dir.path}/wx`, 0o755);
      }
    },
  ),
);

Deno.test("lockStyleFor: a folder's flock everywhere but Windows, which locks a file beside the target", () => {
  assertEquals(lockStyleFor("linux"), "folder");
  assertEquals(lockStyleFor("darwin"), "folder");
  assertEquals(lockStyleFor("freebsd"), "folder");
  assertEquals(lockStyleFor("windows"), "beside");
});

Deno.test("folder lock: a file whose folder does not exist yet locks the nearest folder that does", async () => {
  await using dir = await tempDir();
  const holder = await holdElsewhere(`${dir.path}/new/deeper/file.txt`, "folder", {});
  try {
    const e = await assertRejects(() =>
      new LocalWriteLocks({ waitMs: 300 }).run(`${dir.path}/other.txt`, () => Promise.resolve())
    );
    assert(e instanceof AnchorError && e.code === "LOCK_TIMEOUT", String(e));
  } finally {
    await holder.release();
  }
});
