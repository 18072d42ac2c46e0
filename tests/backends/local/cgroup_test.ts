// The cgroup backend on this machine's real hierarchies (each rung skipped, with the reason,
// where the machine gives none): the probe's choice, a job cgroup made, joined by a process that
// then escapes its session, every member killed at once and the cgroup removed; and the
// fallbacks, on machine shapes given as /proc texts: a hierarchy missing, a "cgroup2 mount" that
// is no cgroup, a job cgroup that cannot be made, a limit no controller can carry.

import { pathExists } from "../../mcp/_jobs_helpers.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { CgroupHost, sweepStale } from "../../../lib/backends/local/cgroup.ts";
import { needing } from "../../_requires.ts";

const v2Test = needing("proc", "cgroup-v2");
const v1Test = needing("proc", "cgroup-v1");
const procTest = needing("proc");

const REAL_MOUNTINFO = Deno.build.os === "linux" ? readText("/proc/self/mountinfo") : "";
const REAL_CGROUP = Deno.build.os === "linux" ? readText("/proc/self/cgroup") : "";

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

const instance = () => crypto.randomUUID().replaceAll("-", "").slice(0, 16);

/** A shell that joins `dir`, leaves a `setsid` child behind, and sleeps: two members. */
function joinAndEscape(dir: string): Deno.ChildProcess {
  return new Deno.Command("/bin/sh", {
    args: ["-c", 'echo 0 > "$1/cgroup.procs" && { setsid sleep 60 & } && exec sleep 60', "t", dir],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

/** Makes a job cgroup, puts two processes in it (one in its own session), kills, removes. */
async function roundTrip(host: CgroupHost, kind: string): Promise<void> {
  const id = instance();
  const setup = await host.prepare(id, "1-1");
  assertEquals(setup.kind, kind, setup.note);
  const dir = setup.dirs[0]!;
  assert(dir.endsWith(`/anchorfs-${id}/job-1-1`), dir);
  assertEquals(host.accepted(setup.dirs, `${id}/1-1`), setup.dirs);
  const child = joinAndEscape(dir);
  try {
    assert(await until(() => host.members(setup.dirs).length === 2), "members missing");
    host.kill(setup.dirs);
    assert(await until(() => host.members(setup.dirs).length === 0), "members survived");
  } finally {
    await child.status;
  }
  await host.remove(setup.dirs);
  assert(!pathExists(dir), `${dir} left behind`);
  assert(!pathExists(dir.slice(0, dir.lastIndexOf("/"))), "the server's cgroup left behind");
}

Deno.test(v2Test(
  "a writable cgroup v2 subtree is chosen; a job's cgroup is made, killed at once, removed",
  async () => {
    const host = new CgroupHost({ requested: "cgroup-v2" });
    const state = await host.containment();
    assertEquals(state.choice.label, "cgroup v2 (writable subtree)");
    assertStringIncludes(state.line, "containment: cgroup v2 (writable subtree) under /");
    await roundTrip(host, "cgroup-v2");
  },
));

Deno.test(
  v1Test("cgroup v1 freezer: a job's cgroup is frozen, killed, thawed, removed", async () => {
    const host = new CgroupHost({ requested: "cgroup-v1" });
    assertEquals((await host.containment()).choice.label, "cgroup v1 freezer");
    await roundTrip(host, "cgroup-v1");
  }),
);

Deno.test(procTest(
  "with no cgroup hierarchy the process tree holds the jobs, and the log line says why",
  async () => {
    const host = new CgroupHost({
      // From the writable-subtree rung (a systemd on this machine would answer for the first).
      requested: "cgroup-v2",
      procFiles: {
        mountinfo: "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n",
        cgroup: "0::/\n",
      },
      limits: { pids: 50 },
    });
    const state = await host.containment();
    assertEquals(state.choice.kind, "process-tree");
    for (
      const why of [
        "cgroup v2 (writable subtree): no cgroup2 file system is mounted",
        "cgroup v1 freezer: no cgroup v1 freezer hierarchy is mounted",
        "--job-pids 50 is not enforced: jobs have no cgroup here",
      ]
    ) assertStringIncludes(state.line, why);
    const setup = await host.prepare(instance(), "1-1");
    assertEquals({ kind: setup.kind, dirs: setup.dirs }, { kind: "process-tree", dirs: [] });
  },
));

Deno.test(v1Test(
  "a cgroup2 mount that is no cgroup (no cgroup.kill) falls to v1 freezer, saying so",
  async () => {
    await using fake = {
      path: await Deno.makeTempDir(),
      [Symbol.asyncDispose]: () => Deno.remove(fake.path, { recursive: true }),
    };
    const mountinfo = REAL_MOUNTINFO.split("\n").filter((l) => !l.includes(" - cgroup2 "))
      .concat(`99 1 0:99 / ${fake.path} rw - cgroup2 cgroup2 rw`).join("\n");
    const host = new CgroupHost({
      requested: "cgroup-v2",
      procFiles: { mountinfo, cgroup: REAL_CGROUP.replace(/^0::.*$/m, "0::/") },
    });
    const state = await host.containment();
    assertEquals(state.choice.kind, "cgroup-v1");
    assertStringIncludes(
      state.line,
      "(not used: cgroup v2 (writable subtree): its cgroups have no cgroup.kill",
    );
    assertEquals([...Deno.readDirSync(fake.path)], [], "the probe cleaned up");
  },
));

Deno.test(v2Test(
  "a job cgroup that cannot be made gives that job the process tree, and says why",
  async () => {
    const host = new CgroupHost({ requested: "cgroup-v2" });
    const state = await host.containment();
    const id = instance();
    const parent = `${state.where}/anchorfs-${id}`;
    Deno.mkdirSync(`${parent}/job-1-1`, { recursive: true });
    try {
      const setup = await host.prepare(id, "1-1");
      assertEquals(setup.kind, "process-tree");
      assertStringIncludes(setup.note ?? "", `its cgroup could not be made under ${state.where}`);
    } finally {
      Deno.removeSync(`${parent}/job-1-1`);
      Deno.removeSync(parent);
    }
  },
));

Deno.test(
  v2Test(
    "--job-pids goes on a hierarchy with the pids controller; pids.max is written",
    async () => {
      const host = new CgroupHost({ requested: "cgroup-v2", limits: { pids: 33 } });
      const state = await host.containment();
      const placed = state.limits.placed;
      if (placed.length === 0) {
        // This machine has no usable pids controller: the line says so, and jobs still start.
        assertStringIncludes(state.line, "--job-pids 33 is not enforced");
        return;
      }
      assertStringIncludes(state.line, "job limits: pids.max 33 processes");
      const id = instance();
      const setup = await host.prepare(id, "1-1");
      try {
        assertEquals(setup.note, undefined);
        const file = setup.dirs.map((d) => `${d}/pids.max`).find(pathExists)!;
        assertEquals(readText(file).trim(), "33");
      } finally {
        await host.remove(setup.dirs);
      }
    },
  ),
);

Deno.test(v2Test(
  "--job-memory where no memory controller can be used is not enforced, and said",
  async () => {
    const mountinfo = REAL_MOUNTINFO.split("\n").filter((l) => !/ - cgroup .*memory/.test(l))
      .join("\n");
    const host = new CgroupHost({
      requested: "cgroup-v2",
      limits: { memoryBytes: 64 * 1024 * 1024 },
      procFiles: { mountinfo, cgroup: REAL_CGROUP },
    });
    const state = await host.containment();
    const v2HasMemory = readText(`${state.where}/cgroup.subtree_control`).includes("memory");
    if (v2HasMemory) return; // the v2 subtree carries it: nothing to fall back from here
    assertStringIncludes(state.line, "--job-memory 67108864 is not enforced: no memory controller");
    const setup = await host.prepare(instance(), "1-1");
    assertEquals(setup.kind, "cgroup-v2");
    await host.remove(setup.dirs);
  },
));

Deno.test(
  procTest("accepted: only the job's own cgroup under a cgroup mount, never another's", () => {
    const host = new CgroupHost();
    const mount = /\S+ \S+ \S+ \/ (\S+) \S+.* - cgroup2? /.exec(REAL_MOUNTINFO)?.[1];
    if (mount === undefined) return;
    const cookie = "0123456789abcdef/42-1";
    const own = `${mount}/anchorfs-0123456789abcdef/job-42-1`;
    assertEquals(host.accepted([own], cookie), [own]);
    assertEquals(
      host.accepted(
        [`${mount}/system.slice`, mount, `/tmp/anchorfs-0123456789abcdef/job-42-1`],
        cookie,
      ),
      [],
    );
    assertEquals(host.accepted([own], "fedcba9876543210/42-1"), []);
    assertEquals(host.accepted(undefined, cookie), []);
  }),
);

Deno.test(v2Test(
  "the probe removes what dead anchorfs processes left: probe cgroups and their jobs' empty cgroups",
  async () => {
    const base = (await new CgroupHost({ requested: "cgroup-v2" }).containment()).where!;
    // Above the largest pid Linux allows (2^22): a pid that is certainly gone.
    const dead = 2 ** 22 + 9;
    const id = instance();
    const left = [
      `${base}/anchorfs-probe-${dead}-deadbeef`,
      `${base}/anchorfs-${id}/job-${dead}-1`,
    ];
    const live = `${base}/anchorfs-${id}/job-${Deno.pid}-1`;
    for (const dir of [...left, live]) Deno.mkdirSync(dir, { recursive: true });
    try {
      sweepStale(base);
      for (const dir of left) assert(!pathExists(dir), `${dir} was left`);
      assert(pathExists(live), "a live server's job cgroup was removed");
    } finally {
      for (const dir of [live, `${base}/anchorfs-${id}`, ...left]) {
        try {
          Deno.removeSync(dir);
        } catch {
          // removed by the sweep
        }
      }
    }
  },
));
