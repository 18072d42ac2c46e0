// Reads the process tables of macOS (`ps`) and Windows (Win32_Process rows) into ProcessInfo
// rows that lib/core/jobs/job_processes.ts judges. Pure text parsing: the backend runs the tools.
// `startTicks` holds what proves a pid on that platform (lstart seconds, creation milliseconds).

import { JOB_COOKIE_VAR, type ProcessInfo } from "./job_processes.ts";

/** `ps` arguments for the macOS table (lstart is five words: `Mon Nov 30 14:52:27 2026`). */
export const PS_TABLE_ARGS = ["-axww", "-o", "pid=,ppid=,pgid=,stat=,lstart=,command="];
/** `ps` arguments that print each process's command line followed by its environment. */
export const PS_ENV_ARGS = ["-axeww", "-o", "pid=,command="];

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

// Exported for tests.
/**
 * `Mon Nov 30 14:52:27 2026` → seconds, read as UTC. ps prints local time; the value only has
 * to be the same at every read of one process, and it is (the zone does not change under us
 * often enough to matter: a changed zone makes a pid look changed, so we leave it alone).
 */
export function parseLstart(words: readonly string[]): number | undefined {
  if (words.length !== 5) return undefined;
  const month = MONTHS.indexOf(words[1]!.toLowerCase());
  const day = Number(words[2]);
  const time = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(words[3]!);
  const year = Number(words[4]);
  if (month < 0 || !Number.isInteger(day) || !time || !Number.isInteger(year)) return undefined;
  return Date.UTC(year, month, day, Number(time[1]), Number(time[2]), Number(time[3])) / 1000;
}

/**
 * Rows of `ps -axww -o pid=,ppid=,pgid=,stat=,lstart=,command=`. macOS has no session column
 * here: the group stands in for it (a job's shell leads both). The name is the command's first
 * word without its directory.
 */
export function parsePsTable(text: string): ProcessInfo[] {
  const rows: ProcessInfo[] = [];
  for (const line of text.split("\n")) {
    const words = line.trim().split(/\s+/);
    if (words.length < 9) continue;
    const [pid, ppid, pgid, stat] = words.slice(0, 4).map((w, i) => (i === 3 ? w : Number(w))) as [
      number,
      number,
      number,
      string,
    ];
    const start = parseLstart(words.slice(4, 9));
    if (!Number.isInteger(pid) || start === undefined) continue;
    const command = words.slice(9);
    const first = command[0] ?? "";
    rows.push({
      pid,
      ppid,
      pgrp: pgid,
      sid: pgid,
      startTicks: start,
      state: stat.startsWith("Z") ? "Z" : stat.charAt(0) || "?",
      name: first.slice(first.lastIndexOf("/") + 1) || "?",
    });
  }
  return rows;
}

const COOKIE_WORD = new RegExp(`(?:^|\\s)${JOB_COOKIE_VAR}=(\\S*)`);

/**
 * Cookies from `ps -axeww -o pid=,command=` (command line, then ` NAME=value` per environment
 * entry). The last match wins: the environment follows the arguments.
 */
export function parsePsEnvironment(text: string): Map<number, string> {
  const cookies = new Map<number, string>();
  for (const line of text.split("\n")) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (!m) continue;
    const words = m[2]!.split(/\s+/);
    let found: string | undefined;
    for (const word of words) {
      const c = COOKIE_WORD.exec(word);
      if (c) found = c[1];
    }
    if (found !== undefined) cookies.set(Number(m[1]), found);
  }
  return cookies;
}

/** PowerShell that prints `pid<TAB>ppid<TAB>creation (ms since 1601)<TAB>name` per process. */
export const WINDOWS_TABLE_SCRIPT = "Get-CimInstance Win32_Process | ForEach-Object { " +
  '"{0}`t{1}`t{2}`t{3}" -f $_.ProcessId, $_.ParentProcessId, ' +
  "[math]::Floor($_.CreationDate.ToFileTimeUtc() / 10000), $_.Name }";

/** The same through wmic (older Windows without the CIM cmdlets). */
export const WMIC_TABLE_ARGS = [
  "process",
  "get",
  "ProcessId,ParentProcessId,CreationDate,Name",
  "/format:csv",
];

/** Rows printed by WINDOWS_TABLE_SCRIPT. Windows has no process groups: pgrp/sid are 0. */
export function parseWindowsTable(text: string): ProcessInfo[] {
  const rows: ProcessInfo[] = [];
  for (const line of text.split(/\r?\n/)) {
    const [pid, ppid, created, ...name] = line.split("\t");
    const row = windowsRow(pid, ppid, Number(created), name.join("\t"));
    if (row) rows.push(row);
  }
  return rows;
}

// Exported for tests.
/**
 * `20261130145227.123456+060` (local time, offset in minutes) → milliseconds since 1601 UTC,
 * the unit WINDOWS_TABLE_SCRIPT prints, so both sources prove a pid the same way.
 */
export function parseWmicDate(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})\.(\d{3})\d*([+-]\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s, ms, offset] = m.slice(1).map(Number) as number[];
  const utc = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!) - offset! * 60_000;
  return utc + EPOCH_1601_TO_1970_MS;
}

// Exported for tests.
/** Milliseconds between 1601-01-01 and 1970-01-01 (Windows FILETIME epoch vs Unix). */
export const EPOCH_1601_TO_1970_MS = 11_644_473_600_000;

/** Rows of `wmic process get ProcessId,ParentProcessId,CreationDate,Name /format:csv`. */
export function parseWmicCsv(text: string): ProcessInfo[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = lines.shift()?.split(",").map((h) => h.trim().toLowerCase()) ?? [];
  const at = (name: string) => header.indexOf(name);
  const rows: ProcessInfo[] = [];
  for (const line of lines) {
    const cells = line.split(",");
    const created = parseWmicDate(cells[at("creationdate")] ?? "");
    const row = windowsRow(
      cells[at("processid")],
      cells[at("parentprocessid")],
      created ?? NaN,
      cells[at("name")] ?? "",
    );
    if (row) rows.push(row);
  }
  return rows;
}

function windowsRow(
  pid: string | undefined,
  ppid: string | undefined,
  created: number,
  name: string,
): ProcessInfo | undefined {
  const p = Number(pid);
  if (pid === undefined || pid.trim() === "" || !Number.isInteger(p)) return undefined;
  // System processes (pid 0, 4) have no creation date; they are never a job's.
  if (!Number.isFinite(created) || created <= 0) return undefined;
  return {
    pid: p,
    ppid: Number(ppid) || 0,
    pgrp: 0,
    sid: 0,
    startTicks: created,
    state: "R",
    name: name.trim() || "?",
  };
}
