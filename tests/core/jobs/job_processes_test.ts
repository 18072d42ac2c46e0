// job_processes.ts (pure): which rows of a process table are a job's (cookie, session,
// descendants; never zombies or reused pids), and the cookie chain of nested servers.

import { assertEquals } from "../../_assert.ts";
import {
  cookiesIn,
  cookiesInTable,
  cookieValue,
  describeProcesses,
  type ProcessInfo,
  selectJobProcesses,
} from "../../../lib/core/jobs/job_processes.ts";

// A table shaped like /proc: the server (100), job A's shell (200, own session) with a child,
// an escaped `setsid` child (its own session, cookie kept), a grandchild that cleared its
// environment, a stranger in a recycled session id, and a zombie.
const table: ProcessInfo[] = [
  { pid: 100, ppid: 1, pgrp: 100, sid: 100, startTicks: 10, state: "S", name: "deno" },
  {
    pid: 200,
    ppid: 100,
    pgrp: 200,
    sid: 200,
    startTicks: 20,
    state: "S",
    name: "bash",
    cookie: "i/1-1",
  },
  {
    pid: 210,
    ppid: 200,
    pgrp: 200,
    sid: 200,
    startTicks: 21,
    state: "S",
    name: "sleep",
    cookie: "i/1-1",
  },
  {
    pid: 220,
    ppid: 1,
    pgrp: 220,
    sid: 220,
    startTicks: 22,
    state: "S",
    name: "sh",
    cookie: "i/1-1",
  },
  { pid: 230, ppid: 220, pgrp: 220, sid: 220, startTicks: 23, state: "S", name: "env-cleared" },
  {
    pid: 240,
    ppid: 1,
    pgrp: 200,
    sid: 200,
    startTicks: 24,
    state: "S",
    name: "no-cookie-in-session",
  },
  {
    pid: 250,
    ppid: 1,
    pgrp: 250,
    sid: 250,
    startTicks: 25,
    state: "Z",
    name: "zombie",
    cookie: "i/1-1",
  },
  {
    pid: 300,
    ppid: 100,
    pgrp: 300,
    sid: 300,
    startTicks: 30,
    state: "S",
    name: "bash",
    cookie: "i/1-2",
  },
  {
    pid: 400,
    ppid: 1,
    pgrp: 400,
    sid: 400,
    startTicks: 40,
    state: "S",
    name: "other",
    cookie: "j/9-9",
  },
  {
    pid: 500,
    ppid: 1,
    pgrp: 500,
    sid: 500,
    startTicks: 50,
    state: "S",
    name: "nested",
    cookie: "j/9-9,i/1-2",
  },
];

const pids = (list: ProcessInfo[]) => list.map((p) => p.pid);

Deno.test("selectJobProcesses finds the job's cookie, session and descendants, never zombies", () => {
  const found = selectJobProcesses(table, {
    cookie: "i/1-1",
    leader: { pid: 200, startTicks: 20 },
    exclude: [100],
  });
  assertEquals(pids(found), [200, 210, 220, 230, 240]);
});

Deno.test("selectJobProcesses trusts a session only while the leader or a cookie holds it", () => {
  // Leader 200 and its cookie holders gone: session 200 now holds only a process without the
  // cookie, which may be a stranger's new session that recycled the pid.
  const rest = table.filter((p) => p.pid !== 200 && p.pid !== 210);
  assertEquals(
    pids(selectJobProcesses(rest, { cookie: "i/1-1", leader: { pid: 200, startTicks: 20 } })),
    [220, 230],
  );
  // A record without a cookie (older server) keeps the start-time proof alone.
  assertEquals(pids(selectJobProcesses(rest, { leader: { pid: 200, startTicks: 20 } })), [240]);
  // A leader pid whose start time differs is someone else, and so is its session.
  assertEquals(
    pids(selectJobProcesses(table, { cookie: "i/7-7", leader: { pid: 200, startTicks: 19 } })),
    [],
  );
});

Deno.test("selectJobProcesses by prefix takes every job of one server, nested ones too", () => {
  assertEquals(pids(selectJobProcesses(table, { cookiePrefix: "i/" })), [
    200,
    210,
    220,
    230,
    300,
    500,
  ]);
  assertEquals(pids(selectJobProcesses(table, { cookiePrefix: "j/" })), [400, 500]);
  assertEquals(selectJobProcesses(table, { cookiePrefix: "" }), []);
  assertEquals(selectJobProcesses(table, {}), []);
});

Deno.test("selectJobProcesses ignores a child that started before its listed parent (pid reuse)", () => {
  const reused: ProcessInfo[] = [
    {
      pid: 200,
      ppid: 1,
      pgrp: 200,
      sid: 200,
      startTicks: 90,
      state: "S",
      name: "bash",
      cookie: "i/1-1",
    },
    { pid: 260, ppid: 200, pgrp: 7, sid: 7, startTicks: 50, state: "S", name: "older" },
  ];
  assertEquals(pids(selectJobProcesses(reused, { cookie: "i/1-1" })), [200]);
});

Deno.test("cookie values chain across nested servers and parse back", () => {
  assertEquals(cookieValue(undefined, "i/1-1"), "i/1-1");
  assertEquals(cookieValue("j/9-9", "i/1-1"), "j/9-9,i/1-1");
  assertEquals(cookiesIn("j/9-9,i/1-1"), ["j/9-9", "i/1-1"]);
  assertEquals(cookiesIn(undefined), []);
  assertEquals([...cookiesInTable(table)].sort(), ["i/1-1", "i/1-2", "j/9-9"]);
});

Deno.test("describeProcesses names each process and caps the list", () => {
  assertEquals(describeProcesses([]), "0 processes");
  assertEquals(describeProcesses([{ pid: 7, name: "sleep" }]), "1 process (sleep 7)");
  const many = Array.from({ length: 11 }, (_, i) => ({ pid: i + 1, name: "sh" }));
  assertEquals(
    describeProcesses(many, 3),
    "11 processes (sh 1, sh 2, sh 3, … and 8 more)",
  );
});
