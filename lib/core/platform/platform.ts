// What the operating system decides, as data and pure functions: which shell runs a command and
// how, how a job's process tree is found and ended, where state lives. The backend builds one
// PlatformDescription for the machine it runs on; tests pass any of the three.

/** Operating systems anchorfs supports. */
type OsName = "linux" | "darwin" | "windows";

/** Shells a command line can be run with (`--shell`). */
export type ShellKind = "bash" | "sh" | "cmd" | "powershell" | "pwsh";

export const SHELL_KINDS: readonly ShellKind[] = ["bash", "sh", "cmd", "powershell", "pwsh"];

/** How a pid is proven to still be the process that was started (pids are reused). */
type ProcessProof =
  /** Linux: start time in clock ticks since boot, from /proc/PID/stat. */
  | "proc-start-ticks"
  /** macOS: `ps -o lstart=`, whole seconds. */
  | "ps-lstart"
  /** Windows: process creation time (PowerShell Get-CimInstance, or wmic), milliseconds. */
  | "creation-time";

/** Where the process table (with each process's job cookie) comes from. */
type ProcessTableSource =
  /** /proc/PID/stat and /proc/PID/environ. */
  | "proc"
  /** `ps -axo pid=,ppid=,pgid=,stat=,lstart=,command=`; cookies from `ps -axeww`. */
  | "ps"
  /** Win32_Process rows; no cookies (another process's environment is not readable). */
  | "cim";

export interface PlatformDescription {
  os: OsName;
  /** The native path separator. */
  pathSep: "/" | "\\";
  /** Whether the default file system compares names without case (APFS, NTFS: yes). */
  caseInsensitive: boolean;
  /** Shell used when `--shell` is not given. */
  defaultShell: ShellKind;
  processProof: ProcessProof;
  processTable: ProcessTableSource;
  /** Whether a job runs in its own process group/session (POSIX); Windows uses the tree. */
  processGroups: boolean;
}

const PLATFORMS: Record<OsName, PlatformDescription> = {
  linux: {
    os: "linux",
    pathSep: "/",
    caseInsensitive: false,
    defaultShell: "bash",
    processProof: "proc-start-ticks",
    processTable: "proc",
    processGroups: true,
  },
  darwin: {
    os: "darwin",
    pathSep: "/",
    caseInsensitive: true,
    defaultShell: "bash",
    processProof: "ps-lstart",
    processTable: "ps",
    processGroups: true,
  },
  windows: {
    os: "windows",
    pathSep: "\\",
    caseInsensitive: true,
    defaultShell: "cmd",
    processProof: "creation-time",
    processTable: "cim",
    processGroups: false,
  },
};

/**
 * The description of an OS as the runtime names it (`linux`, `darwin`, `windows`); other Unixes (freebsd, ...) are treated
 * like macOS (a `ps` table), which is the closest match.
 */
export function describePlatform(os: string): PlatformDescription {
  if (os === "linux" || os === "darwin" || os === "windows") return PLATFORMS[os];
  return { ...PLATFORMS.darwin, caseInsensitive: false };
}

/** A program and its arguments, ready for spawn. */
interface ShellInvocation {
  program: string;
  args: string[];
  /**
   * Windows only: pass `args` to CreateProcess unquoted (cmd.exe parses its own command line;
   * Node's quoting would add backslashes that cmd keeps).
   */
  verbatimArguments: boolean;
  /** Start it as a process group/session leader (POSIX), so the whole group can be signalled. */
  detached: boolean;
}

export interface ShellChoice {
  kind: ShellKind;
  /** The program to run; default per kind (`bash` resolved by the backend, `cmd.exe`, ...). */
  program?: string;
}

/** The default program for a shell kind. */
function shellProgram(kind: ShellKind): string {
  switch (kind) {
    case "bash":
      return "bash";
    case "sh":
      return "/bin/sh";
    case "cmd":
      return "cmd.exe";
    case "powershell":
      return "powershell.exe";
    case "pwsh":
      return "pwsh";
  }
}

/** File name extension of a script file for the shell (long command lines run from a file). */
export function scriptExtension(kind: ShellKind): string {
  return kind === "cmd" ? ".cmd" : kind === "powershell" || kind === "pwsh" ? ".ps1" : ".sh";
}

const POWERSHELL_FLAGS = ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass"];

/**
 * How `command` is started. `scriptPath` is set when the command line was written to a file
 * (too long for one argument): then the shell runs that file.
 *
 * @example
 * ```ts
 * shellInvocation(describePlatform("windows"), { kind: "cmd" }, "dir");
 * // { program: "cmd.exe", args: ["/d", "/s", "/c", "\"dir\""], verbatimArguments: true, ... }
 * ```
 */
export function shellInvocation(
  platform: PlatformDescription,
  shell: ShellChoice,
  command: string,
  scriptPath?: string,
): ShellInvocation {
  const program = shell.program ?? shellProgram(shell.kind);
  const detached = platform.processGroups;
  switch (shell.kind) {
    case "bash":
    case "sh":
      return {
        program,
        args: scriptPath === undefined ? ["-c", command] : [scriptPath],
        verbatimArguments: false,
        detached,
      };
    case "cmd":
      // `/d` skips AutoRun, `/s /c "..."` strips exactly the outer quotes and keeps the rest as
      // typed (Octofs and Node's own `shell: true` do the same).
      return {
        program,
        args: ["/d", "/s", "/c", `"${scriptPath === undefined ? command : `"${scriptPath}"`}"`],
        verbatimArguments: true,
        detached,
      };
    case "powershell":
    case "pwsh":
      return {
        program,
        args: scriptPath === undefined
          ? [...POWERSHELL_FLAGS, "-Command", command]
          : [...POWERSHELL_FLAGS, "-File", scriptPath],
        verbatimArguments: false,
        detached,
      };
  }
}

/** Above this a command line is run from a script file (Linux caps one argv string at 128 KiB;
 * cmd.exe's whole command line at 8191 characters). */
export function maxInlineCommandBytes(shell: ShellKind): number {
  return shell === "cmd" ? 8000 : 64 * 1024;
}

/** How a job's process tree is ended. */
type KillPlan =
  /**
   * POSIX: TERM, then KILL, to every process proven the job's (cookie, the shell's process
   * group/session, their descendants), read from the named process table.
   */
  | { method: "signals"; table: ProcessTableSource }
  /** Windows: the tree under the job's shell, forcibly, by the OS tool. */
  | { method: "command"; program: string; args: string[] };

/** The plan for ending the tree under `pid` (the job's shell). */
export function killPlan(platform: PlatformDescription, pid: number): KillPlan {
  if (platform.os === "windows") {
    return { method: "command", program: "taskkill", args: ["/T", "/F", "/PID", String(pid)] };
  }
  return { method: "signals", table: platform.processTable };
}

/** Environment lookup: the value of a variable, or undefined. */
type EnvLookup = (key: string) => string | undefined;

/**
 * The state dir: `$ANCHORFS_STATE_DIR`, else per platform — Linux `$XDG_STATE_HOME/anchorfs`
 * or `~/.local/state/anchorfs`; macOS `~/Library/Application Support/anchorfs`; Windows
 * `%LOCALAPPDATA%\anchorfs` (or `%USERPROFILE%\AppData\Local\anchorfs`).
 */
export function defaultStateDir(platform: PlatformDescription, env: EnvLookup): string {
  const explicit = env("ANCHORFS_STATE_DIR");
  if (explicit) return explicit;
  const sep = platform.pathSep;
  const join = (...parts: string[]) =>
    parts.map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, "") : p)).join(sep);
  switch (platform.os) {
    case "windows": {
      const local = env("LOCALAPPDATA");
      if (local) return join(local, "anchorfs");
      return join(env("USERPROFILE") ?? env("HOME") ?? ".", "AppData", "Local", "anchorfs");
    }
    case "darwin":
      return join(env("HOME") ?? ".", "Library", "Application Support", "anchorfs");
    case "linux": {
      const xdg = env("XDG_STATE_HOME");
      if (xdg) return join(xdg, "anchorfs");
      return join(env("HOME") ?? env("USERPROFILE") ?? ".", ".local", "state", "anchorfs");
    }
  }
}

/** The user's home: HOME, or on Windows USERPROFILE (HOMEDRIVE+HOMEPATH as a last resort). */
function homeDir(platform: PlatformDescription, env: EnvLookup): string | undefined {
  if (platform.os !== "windows") return env("HOME");
  const drive = env("HOMEDRIVE");
  const path = env("HOMEPATH");
  return env("USERPROFILE") ?? env("HOME") ?? (drive && path ? `${drive}${path}` : undefined);
}

/** The OpenSSH agent's named pipe on Windows (the Win32-OpenSSH service listens there). */
export const WINDOWS_SSH_AGENT_PIPE = "\\\\.\\pipe\\openssh-ssh-agent";

/**
 * Where ssh finds its files and agent: `~/.ssh/config` (`%USERPROFILE%\.ssh\config` on
 * Windows), and the agent at SSH_AUTH_SOCK, else on Windows the OpenSSH agent's named pipe.
 * An empty SSH_AUTH_SOCK turns the agent off.
 */
export function sshLocations(
  platform: PlatformDescription,
  env: EnvLookup,
): {
  home: string | undefined;
  sshDir: string | undefined;
  config: string | undefined;
  agent: string | undefined;
} {
  const home = homeDir(platform, env);
  const sep = platform.pathSep;
  const sshDir = home === undefined ? undefined : `${home.replace(/[\\/]+$/, "")}${sep}.ssh`;
  const sock = env("SSH_AUTH_SOCK");
  const agent = sock !== undefined
    ? (sock === "" ? undefined : sock)
    : platform.os === "windows"
    ? WINDOWS_SSH_AGENT_PIPE
    : undefined;
  return { home, sshDir, config: sshDir && `${sshDir}${sep}config`, agent };
}
