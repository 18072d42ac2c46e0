// Process tables where there is no /proc: macOS (`ps`) and Windows (Win32_Process through
// PowerShell, else wmic), parsed by lib/core/jobs/process_table_text.ts. Also the Windows tree kill
// (`taskkill /T /F`). Synchronous, like the /proc reader: the reaper reads tables in tight rounds.

import type { ProcessInfo } from "../../core/jobs/job_processes.ts";
import {
  parsePsEnvironment,
  parsePsTable,
  parseWindowsTable,
  parseWmicCsv,
  PS_ENV_ARGS,
  PS_TABLE_ARGS,
  WINDOWS_TABLE_SCRIPT,
  WMIC_TABLE_ARGS,
} from "../../core/jobs/process_table_text.ts";

function runSync(program: string, args: string[]): string | undefined {
  try {
    const out = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      windowsRawArguments: false,
    }).outputSync();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined; // tool missing
  }
}

/** macOS/BSD: every process from `ps`, with the job cookie of the ones whose environment we
 * may read (our own uid). `pids` narrows to those processes. */
export function readPsTable(pids?: readonly number[]): ProcessInfo[] {
  const only = pids && pids.length > 0 ? ["-p", pids.join(",")] : [];
  const table = parsePsTable(runSync("ps", [...PS_TABLE_ARGS, ...only]) ?? "");
  const env = parsePsEnvironment(runSync("ps", [...PS_ENV_ARGS, ...only]) ?? "");
  for (const row of table) {
    const cookie = env.get(row.pid);
    if (cookie !== undefined && row.state !== "Z") row.cookie = cookie;
  }
  return table;
}

const POWERSHELL_ARGS = ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command"];

/** Windows: every process with its parent and creation time (no cookies: Windows does not let
 * one process read another's environment without native calls). */
export function readWindowsTable(pid?: number): ProcessInfo[] {
  const script = pid === undefined ? WINDOWS_TABLE_SCRIPT : WINDOWS_TABLE_SCRIPT.replace(
    "Get-CimInstance Win32_Process",
    `Get-CimInstance Win32_Process -Filter "ProcessId=${Math.trunc(pid)}"`,
  );
  const ps = runSync("powershell.exe", [...POWERSHELL_ARGS, script]);
  if (ps !== undefined) return parseWindowsTable(ps);
  const args = pid === undefined
    ? WMIC_TABLE_ARGS
    : ["process", "where", `ProcessId=${Math.trunc(pid)}`, ...WMIC_TABLE_ARGS.slice(1)];
  return parseWmicCsv(runSync("wmic", args) ?? "");
}

/** Windows: ends the tree under `pid` at once (`taskkill /T /F /PID`). */
export function killWindowsTree(pid: number): boolean {
  return runSync("taskkill", ["/T", "/F", "/PID", String(pid)]) !== undefined;
}
