// `anchorfs mcp`: parses the server flags, builds services and one session, and serves MCP over
// stdio for both protocol eras. Exits when stdin closes, after releasing every service. The MCP
// SDK is imported last (stdio_serve.ts); main.ts may have opened stdin before this module loaded
// (early_start.ts), so that the opening `initialize` is answered while all this loads.

import { type ParseArgsFailure, parseArgsMessage } from "../core/usage_text.ts";
import { closeServices, createServices } from "../compose.ts";
import { AnchorError, toAnchorError } from "../core/errors.ts";
import { formatJobUri } from "../core/jobs/job_uri.ts";
import { Confinement } from "../ops/confinement.ts";
import { ExecFileGuard } from "../ops/edit/exec_guard.ts";
import type { Location, Locations } from "../ops/location.ts";
import { nearestExistingParentUrl } from "../ops/missing_path.ts";
import {
  guide,
  joinGuide,
  renderGuide,
  step,
  type StepSyntax,
  toolCallSyntax,
} from "../core/next_step.ts";
import { createSession } from "../ops/session.ts";
import type { Services } from "../ops/services.ts";
import type { ServerOptions } from "./tool_env.ts";
import { ObservedTransport } from "./stdio/stdio_transport.ts";
import { OutboundQueue } from "./stdio/outbound_queue.ts";
import type { EarlyOpening } from "./stdio/early_start.ts";
import { StdioWire } from "./stdio/stdio_wire.ts";
import { logError, logLine } from "./log.ts";
import { writeModeLine } from "../backends/local/checked_swap.ts";
import { exchangeSupport } from "../backends/local/rename_exchange.ts";
import { loadWithReserve } from "../backends/local/spare_descriptors.ts";
import { startQuietCollections } from "../backends/local/heap.ts";
import { fixMmapThreshold, trimAfterStart } from "../backends/platform/return_memory.ts";
import { HTTP_USAGE } from "./http/http_options.ts";
import { parseServeFlags } from "./flags.ts";
import { parseMcpArgs } from "./mcp_args.ts";

export { parseMcpArgs };

export const MCP_USAGE =
  `Usage: anchorfs mcp [--path DIR] [--foreground-window SECONDS] [--ssh-timeout SECONDS]
                    [--state-dir DIR] [--allow DIR]... [--roots] [--no-shell]
                    [--allow-exec-files | --protect-exec-files]
                    [--max-message-bytes N] [--max-file-bytes N] [--deadline SECONDS]
                    [--shell bash|sh|cmd|powershell|pwsh] [--tail-bytes N]
                    [--passing-tail-lines N] [--job-memory N] [--job-pids N]

Serves the anchorfs tools over MCP on stdin/stdout (for Claude, Cursor, Codex and other clients).

Options:
  --path DIR                   Start directory for the session (default: the current directory).
                               May be ssh://host/abs/path for a remote session root.
  --foreground-window SECONDS  How long a shell command runs in the foreground before it moves
                               to a background job (default 10; fractions allowed).
  --ssh-timeout SECONDS        How long to wait for an SSH connection (default 30).
  --state-dir DIR              Where job records and logs live (default: $ANCHORFS_STATE_DIR,
                               else $XDG_STATE_HOME/anchorfs or ~/.local/state/anchorfs;
                               macOS ~/Library/Application Support/anchorfs; Windows
                               %LOCALAPPDATA%\\anchorfs).
  --allow DIR                  Confine the file tools (view, text_editor, batch_edit,
                               extract_lines, workdir) to DIR, symlinks resolved; repeatable;
                               ssh://host/dir for a remote tree. Does not confine the shell.
  --roots                      Confine the file tools to the roots the client offers
                               (roots/list), within --allow when both are given.
  --no-shell                   Remove the shell and jobs tools (read/edit-only deployments).
                               The edit tools then refuse files the user's tools run as
                               commands (.git/config, .git/hooks, .envrc, .vscode/tasks.json,
                               ...; docs/security.md lists them).
  --allow-exec-files           With --no-shell: let the edit tools write those files too.
  --protect-exec-files         Refuse those files with the shell tool present as well.
  --max-message-bytes N        Largest message accepted on stdin, in bytes of JSON (default 4M;
                               K/M suffixes). A bigger one is answered with an error and
                               dropped; the session goes on.
  --max-file-bytes N           Largest file that view, the edits and extract_lines read whole
                               (default 16M; K, M, G suffixes allowed). Bigger files get an error
                               naming the alternatives (the shell); searches skip them, saying so.
  --deadline SECONDS           Longest a search or listing runs before it returns what it found
                               so far, saying so (default 50, under the 60 s request timeout of
                               common clients; fractions allowed).
  --shell NAME                 The shell commands run with: bash (default; sh when bash is
                               missing), cmd (default on Windows: cmd.exe /d /s /c),
                               powershell, pwsh, or sh. Commands on ssh:// hosts use bash there.
  --tail-bytes N               Output tail a shell or jobs result shows, in bytes as sent
                               (default 4096; 256 to 1048576). The whole log stays readable
                               with view {"path":"${formatJobUri("ID")}"}.
  --passing-tail-lines N       Lines of that tail a passing (exit 0) run shows: its summary
                               (default 10; 0 shows the whole --tail-bytes tail). jobs read
                               and wait with "bytes" show that many bytes.
  --job-memory N               Memory limit of each job (its cgroup's memory.max; K, M, G
                               suffixes), where jobs get a cgroup with the memory controller.
                               The start-up log says whether it is enforced.
  --job-pids N                 Most processes each job may have at once (its cgroup's
                               pids.max: a fork bomb stops there), where jobs get a cgroup with
                               the pids controller. The start-up log says whether it is enforced.
  -h, --help                   Show this help.
${HTTP_USAGE}`;

export interface McpCommandIo {
  out(text: string): void;
  err(text: string): void;
  /**
   * How start-up errors on stderr write the calls they suggest: a person reads them (in a
   * terminal, or a client's server log), so main.ts hands in the CLI's command lines. Default:
   * tool calls. Errors sent to the client as tool results are always tool calls.
   */
  steps?: StepSyntax;
}

const PASS_A_DIRECTORY = "Pass a directory that exists, e.g. --path . or --path ssh://box/srv/app.";

/**
 * --path must be a folder: a file gets its folder as the hint; a missing path says so, and names
 * its nearest existing parent with the call that lists it.
 */
async function notARoot(
  locations: Locations,
  root: Location,
  path: string,
  type: string | undefined,
): Promise<AnchorError> {
  const rules = root.backend.paths;
  if (type === undefined) {
    const parentUrl = await nearestExistingParentUrl(locations, root);
    return new AnchorError({
      code: "NOT_FOUND",
      message: `--path ${JSON.stringify(path)} does not exist.`,
      hint: joinGuide(
        PASS_A_DIRECTORY,
        parentUrl === null
          ? ""
          : guide` Its nearest existing parent is ${JSON.stringify(parentUrl)}: ${
            step("view", { path: parentUrl })
          } lists it.`,
      ),
    });
  }
  const folder = type === "file" ? rules.parent(path.replace(/\/+$/, "")) : undefined;
  return new AnchorError({
    code: "NOT_A_DIRECTORY",
    message: `--path ${JSON.stringify(path)} is ${
      type === "file" ? "a file" : "neither a file nor a directory"
    }, not a directory; the session starts in a directory.`,
    hint: folder !== undefined
      ? `Pass its folder: anchorfs mcp --path ${shellWord(folder)}`
      : PASS_A_DIRECTORY,
  });
}

/** A path as typed in a shell: quoted when it has anything but plain path characters. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * --allow / --roots: resolves the allowed directories and makes every file tool's path go through
 * the check (Locations.resolve). Undefined when neither flag was given: nothing is confined.
 */
async function setUpConfinement(
  services: Services,
  allow: string[],
  roots: boolean,
): Promise<Confinement | undefined> {
  const start = services.locations.localAt(Deno.cwd());
  const confinement = await Confinement.create(services.locations, start, { allow, roots });
  if (confinement) services.confinement = confinement;
  return confinement;
}

/**
 * The session's start directory: --path, else the current directory; with --allow and no --path,
 * the first allowed directory when the current one is outside. A --path outside --allow is refused.
 */
async function sessionRoot(
  services: Services,
  confinement: Confinement | undefined,
  path: string | undefined,
): Promise<Location> {
  const { locations } = services;
  const start = locations.localAt(Deno.cwd());
  let root = await locations.locate(path ?? Deno.cwd(), start);
  const allowed = confinement?.allowed ?? [];
  if (allowed.length > 0 && !(await confinement!.allowsByFlag(root))) {
    if (path !== undefined) {
      throw new AnchorError({
        code: "INVALID_FLAG",
        message: `--path ${JSON.stringify(path)} is outside every --allow directory (${
          allowed.map((a) => JSON.stringify(a.url)).join(", ")
        }).`,
        hint: `Pass a --path inside one of them, or leave --path out to start in ${
          shellWord(allowed[0]!.url)
        }.`,
      });
    }
    root = await locations.locate(allowed[0]!.url, start);
  }
  await confinement?.setStartDir(root);
  locations.setGuard(confinement);
  return root;
}

/** The start-up line saying how the file tools' paths are confined (docs/security.md). */
function describeMethod(method: "openat2" | "openat" | "path"): string {
  const how = {
    openat2: "each path is opened beneath the allowed directories by the kernel " +
      "(openat2 RESOLVE_BENEATH)",
    openat: "each path is opened beneath the allowed directories one component at a time " +
      "(openat O_NOFOLLOW from held descriptors; this kernel has no openat2)",
    path: "path check only (no FFI or not Linux): a process that swaps a directory for a " +
      "symlink between the check and the operation can redirect it",
  }[method];
  return `anchorfs mcp: confinement: ${method}: ${how}.`;
}

/** Where the file tools may go, for the server instructions. */
function describeConfinement(confinement: Confinement): string {
  const allowed = confinement.allowed.map((a) => JSON.stringify(a.url)).join(", ");
  if (!confinement.rootsMode) return allowed;
  return allowed === ""
    ? "the client's roots (the start directory if it offers none)"
    : `the client's roots within ${allowed} (${allowed} if it offers none)`;
}

/**
 * A server's memory housekeeping: memory the module loads freed is trimmed (return_memory.ts),
 * V8's garbage collected when the server is quiet (heap.ts): on a cold Deno cache an idle server
 * held 116 MB, not 93. And big buffers get pages of their own, returned when freed
 * (return_memory.ts fixMmapThreshold).
 */
function startMemoryHousekeeping(): void {
  fixMmapThreshold();
  trimAfterStart();
  startQuietCollections();
}

/**
 * Runs the server; resolves with the exit code when the connection ends. `opening`: stdin already
 * opened by main.ts (early_start.ts), for flags that cannot change the opening reply.
 */
export async function runMcpCommand(
  args: string[],
  io: McpCommandIo,
  opening?: EarlyOpening,
): Promise<number> {
  let values;
  try {
    values = parseMcpArgs(args);
  } catch (e) {
    // The CLI's usage-error shape and exit code (docs/errors.md "Exit codes").
    const message = parseArgsMessage(e as ParseArgsFailure, false);
    io.err(`error: ${message}\nhint: ${parseErrorHint(e, args)}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${MCP_USAGE}\n`);
    return 0;
  }
  let services;
  try {
    const {
      foregroundWindowSeconds,
      maxMessageBytes,
      deadlineSeconds,
      tailBytes,
      passingLines,
      http,
      serviceOptions,
    } = parseServeFlags(values);
    services = createServices(serviceOptions);
    startMemoryHousekeeping();
    const jobs = services.jobs;
    // Last resort if the process exits without closeServices: no job outlives the server.
    globalThis.addEventListener("unload", () => jobs.killAllNow());
    // In the background: terminating a dead server's jobs may take a kill grace; serving may not.
    jobs.recover().catch((e) => logRecoveryFailure(e, io.steps ?? toolCallSyntax));
    const shell = values["no-shell"] !== true;
    const execFiles = execFileGuard(values, shell);
    if (execFiles) services.execFiles = execFiles;
    const confinement = await setUpConfinement(services, values.allow ?? [], values.roots === true);
    const root = await sessionRoot(services, confinement, values.path);
    const info = await root.backend.stat(root.path);
    if (info?.type !== "dir") {
      throw await notARoot(services.locations, root, values.path ?? ".", info?.type);
    }
    logStartupModes(jobs, shell, confinement);
    const serverOptions = {
      foregroundWindowSeconds,
      tailBytes,
      passingLines,
      shell,
      confined: confinement !== undefined,
      ...(confinement && { confinedTo: describeConfinement(confinement) }),
      protectsExecFiles: execFiles !== undefined,
      deadlineSeconds,
    };
    if (http) {
      // Over HTTP a reply's read budget is released when its handler returns (no replySent).
      const { serveHttpCommand } = await loadWithReserve(
        () => import("./http/http_command.ts"),
        { check: false },
      );
      await serveHttpCommand(services, root, serverOptions, http, values);
      return 0;
    }
    await serveStdioSession(services, root, serverOptions, maxMessageBytes, opening);
    return 0;
  } catch (e) {
    const error = toAnchorError(e);
    if (error.fault === "internal") logError("mcp", e);
    else logLine(startupErrorText(error, io.steps ?? toolCallSyntax));
    // Exit codes as in the CLI: 2 a bad flag or --path, 3 a bug, 1 the environment failed.
    return error.fault === "caller" ? 2 : error.fault === "internal" ? 3 : 1;
  } finally {
    if (services) await closeJobsFirmly(services);
  }
}

/**
 * The start-up log's lines on what holds in this process: the jobs' containment (a cgroup per job,
 * or the process tree, and why), how local writes replace a file, how confinement opens paths.
 */
function logStartupModes(
  jobs: Services["jobs"],
  shell: boolean,
  confinement: Awaited<ReturnType<typeof setUpConfinement>>,
): void {
  if (shell) {
    jobs.containmentLine().then((line) => line && logLine(`anchorfs mcp: ${line}`), () => {});
  }
  logLine(`anchorfs mcp: ${writeModeLine(exchangeSupport())}.`);
  if (confinement) logLine(describeMethod(confinement.method));
  if (confinement && shell) {
    logLine(
      "anchorfs mcp: warning: --allow/--roots confine the file tools only; the shell tool runs " +
        "commands as this user with no path checks (add --no-shell to remove it).",
    );
  }
}

/**
 * The guard of files the user's tools run as commands: on with --no-shell (a read/edit-only
 * server must not be able to make git or the editor run a command) unless --allow-exec-files,
 * and with --protect-exec-files whatever the shell.
 */
function execFileGuard(
  values: ReturnType<typeof parseMcpArgs>,
  shell: boolean,
): ExecFileGuard | undefined {
  if (values["allow-exec-files"] && values["protect-exec-files"]) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: "--allow-exec-files and --protect-exec-files contradict each other.",
      hint: "Pass one of them: --protect-exec-files refuses edits of files tools run as " +
        "commands, --allow-exec-files (with --no-shell) allows them.",
    });
  }
  if (values["protect-exec-files"]) return new ExecFileGuard("--protect-exec-files");
  if (!shell && !values["allow-exec-files"]) return new ExecFileGuard("--no-shell");
  return undefined;
}

/**
 * The hint for flags node:util could not parse. A stray operand is most likely a directory meant
 * for a flag (`--roots /srv/app`, `anchorfs mcp /srv/app`): name the two flags that take one.
 */
function parseErrorHint(error: unknown, args: readonly string[]): string {
  const help = "anchorfs mcp --help lists the options";
  const stray = (error as { code?: string }).code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"
    ? /^Unexpected argument '(.*)'\./.exec((error as Error).message)?.[1]
    : undefined;
  if (stray === undefined) return help;
  const dir = shellWord(stray);
  const afterRoots = args[args.indexOf(stray) - 1] === "--roots"
    ? " (--roots takes no value: the client names the roots)"
    : "";
  return `anchorfs mcp takes no operands: --path ${dir} starts the session there, --allow ${dir} ` +
    `confines the file tools to it${afterRoots}; ${help}`;
}

/**
 * Checking the jobs earlier servers left failed: a bug is logged with its stack; an unreadable
 * state dir is a warning a person can act on (the server still serves; the shell and jobs tools
 * answer each call with the same error), as `warning:` and `hint:` lines.
 */
export function recoveryWarningText(e: unknown, steps: StepSyntax): string | undefined {
  const error = toAnchorError(e);
  if (error.fault === "internal") return undefined;
  const hint = error.hintText === undefined ? "" : renderGuide(error.hintText, steps);
  return `anchorfs mcp: warning: ${error.message}\nThe jobs of earlier servers were not checked, ` +
    `and the shell and jobs tools fail the same way until this is fixed.${
      hint ? `\nhint: ${hint}` : ""
    }`;
}

function logRecoveryFailure(e: unknown, steps: StepSyntax): void {
  const text = recoveryWarningText(e, steps);
  if (text === undefined) logError("job recovery", e);
  else logLine(text);
}

/** A start-up error as a person reads it on stderr: `error:`, then `hint:` in `steps` syntax. */
function startupErrorText(error: AnchorError, steps: StepSyntax): string {
  const hint = error.hintText === undefined ? "" : renderGuide(error.hintText, steps);
  return `error: ${error.message}${hint ? `\nhint: ${hint}` : ""}`;
}

/**
 * Serves one session at `root` on stdio (both protocol eras) until stdin closes or a SIGTERM or
 * SIGINT closes the transport. `opening`: stdin already opened by main.ts (early_start.ts).
 */
async function serveStdioSession(
  services: Services,
  root: Location,
  serverOptions: ServerOptions,
  maxMessageBytes: number,
  opening: EarlyOpening | undefined,
): Promise<void> {
  const session = createSession(root);
  const wire = opening?.wire ??
    new StdioWire({ maxMessageBytes, log: (line) => logLine(`anchorfs: ${line}`) });
  const outbound = opening?.outbound ?? new OutboundQueue(wire);
  const transport = opening?.transport ?? new ObservedTransport(outbound);
  // Opened early, stdin may have closed already while the rest loaded.
  const closed = wire.isClosed
    ? Promise.resolve()
    : new Promise<void>((resolve) => transport.onClosed(resolve));
  const stop = () => transport.close().catch(() => {});
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  opening?.releaseSignals();
  // Closed already (stdin ended before a single line, or a signal while this loaded): no one
  // to serve, no SDK to load. Lines read before stdin ended keep the wire open until served.
  if (!wire.isClosed) {
    // The SDK loads with the descriptors held back for loads (a load under EMFILE ends Deno).
    const { serveOnWire } = await loadWithReserve(
      () => import("./stdio/stdio_serve.ts"),
      { check: false },
    );
    serveOnWire(
      services,
      session,
      {
        ...serverOptions,
        replySent: (id) => outbound.whenReplySent(id),
      },
      wire,
      transport,
    );
  }
  await closed;
  Deno.removeSignalListener("SIGTERM", stop);
  Deno.removeSignalListener("SIGINT", stop);
}

/**
 * closeServices, which ends every job process (up to a kill grace). A signal meanwhile (a
 * client's stdio transport sends SIGTERM 2 s after closing stdin) must not end the server with
 * job processes alive: it skips the grace and KILLs them at once instead.
 */
async function closeJobsFirmly(services: Services): Promise<void> {
  const hurry = () => services.jobs.killAllNow();
  Deno.addSignalListener("SIGTERM", hurry);
  Deno.addSignalListener("SIGINT", hurry);
  try {
    // A job's end that could not reach the disk: the last place a person can still read it.
    const unsaved = await services.jobs.shutdown().catch((e) => {
      logError("shutdown", e);
      return [];
    });
    for (const r of unsaved) {
      logLine(
        `anchorfs: job ${r.id} ended (${r.status}), but its record could not be written to ` +
          `${JSON.stringify(r.unsaved!.path)} (${r.unsaved!.code}: ${r.unsaved!.message}); ` +
          "record.json says it is still running, so the next reader will report it lost.",
      );
    }
    await closeServices(services).catch((e) => logError("shutdown", e));
  } finally {
    Deno.removeSignalListener("SIGTERM", hurry);
    Deno.removeSignalListener("SIGINT", hurry);
  }
}
