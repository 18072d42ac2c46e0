// process_table_text.ts (pure): ps and Win32_Process tables as text parsed into rows, and the
// macOS and Windows kill plans chosen from them.

import { assertEquals } from "../../_assert.ts";
import { selectJobProcesses } from "../../../lib/core/jobs/job_processes.ts";
import {
  EPOCH_1601_TO_1970_MS,
  parseLstart,
  parsePsEnvironment,
  parsePsTable,
  parseWindowsTable,
  parseWmicCsv,
  parseWmicDate,
} from "../../../lib/core/jobs/process_table_text.ts";

// What `ps -axww -o pid=,ppid=,pgid=,stat=,lstart=,command=` prints on macOS.
const PS = [
  "    1     0     1 Ss   Mon Nov 30 09:00:01 2026     /sbin/launchd",
  "  500     1   500 S    Mon Nov 30 14:00:00 2026     /usr/local/bin/deno run main.ts mcp",
  "  610   500   610 Ss   Mon Nov 30 14:10:00 2026     /bin/bash -c make test",
  "  611   610   610 S    Mon Nov 30 14:10:01 2026     make test",
  "  700     1   700 Ss   Mon Nov 30 14:10:02 2026     /usr/bin/python3 -m http.server",
  "  701   611   610 Z    Mon Nov 30 14:10:03 2026     (cc)",
  "  800     1   800 S    Mon Nov 30 14:20:00 2026     /Applications/Other.app/Contents/MacOS/Other",
].join("\n");

// `ps -axeww -o pid=,command=`: the environment follows the arguments.
const PS_ENV = [
  "  610 /bin/bash -c make test PATH=/usr/bin ANCHORFS_JOB=abc/500-1 HOME=/Users/me",
  "  611 make test ANCHORFS_JOB=abc/500-1 PATH=/usr/bin",
  "  700 /usr/bin/python3 -m http.server ANCHORFS_JOB=outer/9-9,abc/500-1",
  "  800 /Applications/Other.app/Contents/MacOS/Other HOME=/Users/me",
].join("\n");

Deno.test("parseLstart reads ps's five-word start time as whole seconds", () => {
  assertEquals(
    parseLstart(["Mon", "Nov", "30", "14:52:27", "2026"]),
    Date.UTC(2026, 10, 30, 14, 52, 27) / 1000,
  );
  assertEquals(parseLstart(["Mon", "Foo", "30", "14:52:27", "2026"]), undefined);
});

Deno.test("parsePsTable: pid, parent, group, zombie state and short name per row", () => {
  const rows = parsePsTable(PS);
  assertEquals(rows.length, 7);
  const make = rows.find((r) => r.pid === 611)!;
  assertEquals([make.ppid, make.pgrp, make.sid, make.state, make.name], [
    610,
    610,
    610,
    "S",
    "make",
  ]);
  assertEquals(rows.find((r) => r.pid === 701)!.state, "Z");
  assertEquals(rows.find((r) => r.pid === 610)!.name, "bash");
});

Deno.test("macOS kill plan: cookie rows and the shell's group are the job's, strangers are not", () => {
  const table = parsePsTable(PS);
  const cookies = parsePsEnvironment(PS_ENV);
  assertEquals(cookies.get(700), "outer/9-9,abc/500-1");
  assertEquals(cookies.has(800), false);
  for (const row of table) {
    const c = cookies.get(row.pid);
    if (c !== undefined) row.cookie = c;
  }
  const leader = table.find((r) => r.pid === 610)!;
  const chosen = selectJobProcesses(table, {
    cookie: "abc/500-1",
    leader: { pid: 610, startTicks: leader.startTicks },
    exclude: [500],
  });
  // The escaped server (setsid, own group) is found by its cookie; the zombie is not signalled.
  assertEquals(chosen.map((p) => p.pid), [610, 611, 700]);
});

// WINDOWS_TABLE_SCRIPT's output: pid, parent, creation (ms since 1601), name.
const WIN = [
  "0\t0\t\tSystem Idle Process",
  "4\t0\t\tSystem",
  "1200\t900\t13410000000000\tnode.exe",
  "3000\t1200\t13410000100000\tcmd.exe",
  "3010\t3000\t13410000100500\tcargo.exe",
  "3020\t3010\t13410000101000\trustc.exe",
  "4000\t1\t13410000200000\texplorer.exe",
  "",
].join("\r\n");

Deno.test("parseWindowsTable: rows with creation time; system processes without one are skipped", () => {
  const rows = parseWindowsTable(WIN);
  assertEquals(rows.map((r) => r.pid), [1200, 3000, 3010, 3020, 4000]);
  assertEquals(rows[1]!.startTicks, 13410000100000);
  assertEquals([rows[1]!.pgrp, rows[1]!.name], [0, "cmd.exe"]);
});

Deno.test("Windows kill plan: the live shell and its descendants by parentage, nothing else", () => {
  const rows = parseWindowsTable(WIN);
  const chosen = selectJobProcesses(rows, {
    cookie: "abc/1200-1",
    leader: { pid: 3000, startTicks: 13410000100000 },
    exclude: [1200],
  });
  assertEquals(chosen.map((p) => p.pid), [3000, 3010, 3020]);
  // A pid reused by a stranger (other creation time) proves nothing.
  assertEquals(
    selectJobProcesses(rows, { cookie: "abc/1200-1", leader: { pid: 3000, startTicks: 1 } }),
    [],
  );
});

Deno.test("wmic: CreationDate with its zone offset gives the same unit as the PowerShell table", () => {
  const ms = parseWmicDate("20261130145227.123456+060")!;
  assertEquals(ms - EPOCH_1601_TO_1970_MS, Date.UTC(2026, 10, 30, 13, 52, 27, 123));
  const csv = [
    "",
    "Node,CreationDate,Name,ParentProcessId,ProcessId",
    "PC,20261130145227.123456+000,cmd.exe,1200,3000",
    "PC,,System,0,4",
  ].join("\r\n");
  const rows = parseWmicCsv(csv);
  assertEquals(rows.map((r) => [r.pid, r.ppid, r.name]), [[3000, 1200, "cmd.exe"]]);
});
