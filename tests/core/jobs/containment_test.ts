// containment.ts (pure): the choice of containment rung (cgroup v2, v1, process tree) from probe
// results given as data, the limits' placement, and the start-up line that says why.

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import {
  chooseContainment,
  CONTAINMENT_ORDER,
  containmentRungs,
  describeContainment,
  parseJobPids,
  planLimits,
} from "../../../lib/core/jobs/containment.ts";

const no = (why: string) => ({ ok: false as const, why });
const yes = { ok: true as const };

Deno.test("containmentRungs: auto tries every rung in order; a rung's name starts there", () => {
  assertEquals(containmentRungs(undefined), [...CONTAINMENT_ORDER]);
  assertEquals(containmentRungs("auto"), [...CONTAINMENT_ORDER]);
  assertEquals(containmentRungs("cgroup-v1"), ["cgroup-v1", "process-tree"]);
  assertEquals(containmentRungs(" cgroup-v2 "), ["cgroup-v2", "cgroup-v1", "process-tree"]);
  assertEquals(containmentRungs("process-tree"), ["process-tree"]);
  assertEquals(containmentRungs("bogus"), [...CONTAINMENT_ORDER]);
});

Deno.test("chooseContainment takes each rung when it is the first that works", () => {
  const table: [Parameters<typeof chooseContainment>[1], string, string[]][] = [
    [{ "cgroup-v2-delegated": yes }, "cgroup v2 (delegated systemd scope)", []],
    [
      { "cgroup-v2-delegated": no("systemd is not running here"), "cgroup-v2": yes },
      "cgroup v2 (writable subtree)",
      ["cgroup v2 (delegated systemd scope): systemd is not running here"],
    ],
    [
      {
        "cgroup-v2-delegated": no("a"),
        "cgroup-v2": no("cannot create a cgroup under /sys/fs/cgroup (permission denied)"),
        "cgroup-v1": yes,
      },
      "cgroup v1 freezer",
      [
        "cgroup v2 (delegated systemd scope): a",
        "cgroup v2 (writable subtree): cannot create a cgroup under /sys/fs/cgroup " +
        "(permission denied)",
      ],
    ],
    [
      { "cgroup-v2-delegated": no("a"), "cgroup-v2": no("b"), "cgroup-v1": no("c") },
      "process tree",
      [
        "cgroup v2 (delegated systemd scope): a",
        "cgroup v2 (writable subtree): b",
        "cgroup v1 freezer: c",
      ],
    ],
    // Not probed (the backend stops at the first that works): skipped without a note.
    [{ "cgroup-v2": yes }, "cgroup v2 (writable subtree)", []],
    [{}, "process tree", []],
  ];
  for (const [probes, label, notes] of table) {
    const choice = chooseContainment(undefined, probes);
    assertEquals(choice.label, label);
    assertEquals(choice.notes, notes);
  }
});

Deno.test("chooseContainment honours a request and falls back from it, saying why", () => {
  const probes = { "cgroup-v2-delegated": yes, "cgroup-v2": yes, "cgroup-v1": no("no freezer") };
  assertEquals(chooseContainment("cgroup-v2", probes).kind, "cgroup-v2");
  assertEquals(chooseContainment("process-tree", probes).kind, "process-tree");
  const v1 = chooseContainment("cgroup-v1", probes);
  assertEquals(v1.kind, "process-tree");
  assertEquals(v1.notes, ["cgroup v1 freezer: no freezer"]);
  // Bad input never blocks: read as auto, and said.
  const bad = chooseContainment("cgroups please", probes);
  assertEquals(bad.kind, "cgroup-v2-delegated");
  assertStringIncludes(bad.notes[0]!, 'ANCHORFS_CONTAINMENT="cgroups please" is not one of auto');
});

Deno.test("planLimits puts each limit where a controller can carry it, else says why not", () => {
  const limits = { pids: 64, memoryBytes: 256 * 1024 * 1024 };
  assertEquals(planLimits(limits, "cgroup-v2", { v2: ["pids", "memory"], v1: [] }).placed, [
    { controller: "pids", on: "v2", file: "pids.max", value: "64" },
    { controller: "memory", on: "v2", file: "memory.max", value: "268435456" },
  ]);
  // This machine: v2 has no controllers, v1 pids and memory hierarchies exist.
  const hybrid = planLimits(limits, "cgroup-v2", { v2: ["hugetlb"], v1: ["pids", "memory"] });
  assertEquals(hybrid.placed.map((l) => `${l.on}:${l.file}`), [
    "v1:pids.max",
    "v1:memory.limit_in_bytes",
  ]);
  assertEquals(hybrid.unplaced, []);
  const scope = planLimits(limits, "cgroup-v2-delegated", { v2: [], v1: [] });
  assertEquals(scope.placed.map((l) => `${l.file}=${l.value}`), [
    "TasksMax=64",
    "MemoryMax=268435456",
  ]);
  const partial = planLimits(limits, "cgroup-v1", { v2: ["pids"], v1: ["pids"] });
  assertEquals(partial.placed.map((l) => l.file), ["pids.max"]);
  assertEquals(partial.unplaced.length, 1);
  assertStringIncludes(partial.unplaced[0]!, "--job-memory 268435456 is not enforced");
  const tree = planLimits({ pids: 10 }, "process-tree", { v2: ["pids"], v1: ["pids"] });
  assertEquals(tree.unplaced, ["--job-pids 10 is not enforced: jobs have no cgroup here"]);
  assertEquals(planLimits({}, "cgroup-v2", { v2: [], v1: [] }), { placed: [], unplaced: [] });
});

Deno.test("describeContainment: the start-up line names the rung, why others failed, the limits", () => {
  const choice = chooseContainment(undefined, {
    "cgroup-v2-delegated": no("systemd is not running here"),
    "cgroup-v2": yes,
  });
  const limits = planLimits({ pids: 200 }, "cgroup-v2", { v2: [], v1: ["pids"] });
  assertEquals(
    describeContainment(choice, "/sys/fs/cgroup/unified", limits),
    "containment: cgroup v2 (writable subtree) under /sys/fs/cgroup/unified (not used: cgroup v2 " +
      "(delegated systemd scope): systemd is not running here) job limits: pids.max 200 " +
      "processes (cgroup v1)",
  );
  const tree = describeContainment(chooseContainment("process-tree", {}), undefined);
  assertStringIncludes(
    tree,
    "containment: process tree (a job's processes are found by its cookie",
  );
});

Deno.test("parseJobPids takes a whole number of at least 2", () => {
  assertEquals(parseJobPids("512"), 512);
  for (const bad of ["1", "0", "-3", "2.5", "lots", "", "1e3"]) {
    assertEquals(typeof parseJobPids(bad), "string", bad);
  }
});
