// Turns a path as a model or user wrote it (relative, absolute, "~/x", "ssh://host/x") into a
// Location: the host that owns it (its files, jobs and shell) plus an absolute path there. Tools
// never branch on local vs remote; they get a Location and call its backend and host.

import { AnchorError } from "../core/errors.ts";
import { guide, step } from "../core/next_step.ts";
import { joinPath } from "../core/path/path_text.ts";
import { unquotePath } from "../core/path/path_quote.ts";
import { formatJobUri, hasAnchorfsScheme, parseJobUri } from "../core/jobs/job_uri.ts";
import {
  formatRemoteUrl,
  isRemoteUrl,
  parseRemoteUrl,
  type RemoteTarget,
} from "../core/ssh/remote_url.ts";
import type { FileBackend } from "./ports/file_backend.ts";
import type { RemoteOpener } from "./ports/remote_opener.ts";
import type { PathGuard } from "./ports/path_guard.ts";
import { filesHost, type Host, type Hosts } from "./ports/host.ts";
import { placePasted } from "./pasted_location.ts";

/**
 * An `anchorfs://` path that names no job log (no id, another name): said as such, not as a
 * missing local file `anchorfs:/…` under the working directory.
 */
function notAJobLog(url: string): AnchorError {
  return new AnchorError({
    code: "INVALID_ARGUMENT",
    message: `${JSON.stringify(url)} names no job log: the anchorfs:// paths are the logs of ` +
      `shell jobs, ${formatJobUri("ID")} with the id a shell result or the job list shows.`,
    hint: guide`List the jobs and their ids with ${step("jobs", { action: "list" })}.`,
  });
}

/** A path the tools can use: the backend that owns it plus an absolute path there. */
export interface Location {
  /** The machine the path is on: its files, the jobs it runs, the shell its commands run with. */
  host: Host;
  /**
   * The files the location is used through: the host's, or on a confined server the view that
   * opens them beneath the allowed directories (PathGuard.backendFor).
   */
  backend: FileBackend;
  /** Absolute path on the backend's machine, as its `paths` rules write it (POSIX remotely). */
  path: string;
  /** How to show it: the plain path for local files, `ssh://host/path` for remote ones. */
  url: string;
  /** Set for remote locations: the target as written (used to build urls of neighbours). */
  remote?: RemoteTarget;
  /**
   * The real path (symlinks and `..` resolved) that the confinement check approved, when there is
   * one: a write goes exactly there, so what was checked is what is written (no second lookup
   * of the path text in between). `path` stays as named, for messages and keys.
   */
  real?: string;
  /**
   * Set when the path was pasted in another form (`a.py:623`, a forge URL, `file://`): what it
   * was read as, for the result to say, and the lines it points at.
   */
  pasted?: { note: string; lines?: { start: number; end?: number; column?: number } };
}

/**
 * Resolves paths as a model or person writes them (relative, absolute, `~/x`,
 * `ssh://host/x`, a job URI) into {@linkcode Location}s. One per process, in
 * {@linkcode Services}.
 *
 * @example
 * ```ts
 * import { Locations, MemoryBackend } from "@anchorfs/anchorfs";
 *
 * const locations = new Locations(new MemoryBackend({ "/app/src/a.ts": "" }));
 * const cwd = locations.localAt("/app");
 * (await locations.resolve("src/a.ts", cwd)).path; // "/app/src/a.ts"
 * ```
 */
export class Locations implements Hosts {
  private guard: PathGuard | undefined;
  private jobLogs: Host | undefined;
  /** The host plain paths are on: this machine in anchorfs (its shell is `--shell`'s). */
  readonly localHost: Host;
  /** The local host's files. */
  readonly local: FileBackend;

  /**
   * Resolves plain paths to `local` and `ssh://` paths through `remote`.
   *
   * @param local The host (or just the backend: its shell is then bash, or cmd on a disk with
   *   Windows paths) plain paths resolve to: local disk in anchorfs.
   * @param remote Opens `ssh://` paths; without one they fail with REMOTE_UNAVAILABLE.
   */
  constructor(local: FileBackend | Host, private remote?: RemoteOpener) {
    // A backend reads files; a host hands out its files.
    this.localHost = "readFile" in local ? filesHost(local) : local;
    this.local = this.localHost.files;
  }

  /** Confines every later `resolve` (anchorfs mcp --allow / --roots). */
  setGuard(guard: PathGuard | undefined): void {
    this.guard = guard;
  }

  /** Serves job URIs as paths: a job's log, read-only (lib/ops/jobs/job_log_files.ts). */
  setJobLogs(backend: FileBackend): void {
    this.jobLogs = this.jobLogHost(backend);
  }

  /** Job logs are this machine's records: hints about them are written for the local shell. */
  private jobLogHost(backend: FileBackend): Host {
    return { id: backend.id, files: backend, shell: this.localHost.shell };
  }

  /**
   * These locations with job URIs served by `backend` (one agent's own jobs, on a
   * multi-agent server); the backends, the remote opener and the guard stay these, shared.
   */
  withJobLogs(backend: FileBackend): Locations {
    const scoped = Object.create(this) as Locations;
    scoped.jobLogs = this.jobLogHost(backend);
    return scoped;
  }

  /** The location of an absolute path on the local backend (no checks, no I/O). */
  localAt(path: string): Location {
    return { host: this.localHost, backend: this.local, path, url: path };
  }

  /**
   * The host `url` is on (a plain path: this machine; ssh://: that host, connecting on first
   * use), for a job record whose server is not this one. Nothing is checked or confined: the
   * record names where its job ran.
   */
  async hostAt(url: string): Promise<Host> {
    if (!isRemoteUrl(url)) return this.localHost;
    if (!this.remote) throw new Error("this process cannot open ssh connections");
    return await this.remote.open(parseRemoteUrl(url).target);
  }

  /** A location on the same backend as `base`, at another absolute path. */
  sibling(base: Location, path: string): Location {
    return siblingLocation(base, path);
  }

  /**
   * Resolves `raw` against `cwd` (which may itself be remote), then asks the guard, if any,
   * whether the file tools may use it: the one check every file tool goes through.
   */
  async resolve(raw: string, cwd: Location): Promise<Location> {
    // A job's log is the server's own record of a command's output, not a path in the tree:
    // confinement does not apply to it (the shell is not confined either).
    if (this.jobLogs && hasAnchorfsScheme(raw.trim())) {
      const url = raw.trim();
      if (parseJobUri(url) === undefined) throw notAJobLog(url);
      return { host: this.jobLogs, backend: this.jobLogs.files, path: url, url };
    }
    const location = await this.locate(raw, cwd, this.guard);
    const real = await this.guard?.check(location);
    if (real === undefined) return location;
    return {
      ...location,
      backend: this.guard?.backendFor?.(location.backend) ?? location.backend,
      real,
    };
  }

  /**
   * `resolve` without the confinement check: for what is not a file tool's path (the shell's
   * directory, the --allow list itself).
   */
  async locate(raw: string, cwd: Location, guard?: PathGuard): Promise<Location> {
    const location = await this.place(raw, cwd, guard);
    // Before anything compares or keys the path: whether its directories fold case.
    await location.backend.learnCase?.(location.path);
    return location;
  }

  /**
   * `locate` without the case probe: the backend and the absolute path `raw` names. `forms`:
   * also read the forms agents paste (lib/ops/pasted_location.ts) when the plain path is missing.
   */
  async place(raw: string, at: Location, guard?: PathGuard, forms = true): Promise<Location> {
    // A working directory reached through a confined view: what `locate` returns is unchecked,
    // so on the backend itself (a checked path gets the view back in `resolve`).
    const cwd = at.backend.unconfined ? { ...at, backend: at.backend.unconfined } : at;
    // A name as listings and searches quote it ("new\nline.txt") reads back as that name.
    const text = unquotePath(raw);
    const pasted = forms && text !== "" ? await placePasted(this, text, cwd, guard) : undefined;
    if (pasted) return pasted;
    if (text === "") {
      throw new AnchorError({
        code: "EMPTY_PATH",
        message: "The path is empty.",
        hint:
          'Pass a file or directory path, e.g. "src/main.ts", "/etc/hosts" or "ssh://box/srv/app".',
      });
    }
    if (text.includes("\0")) throw nulInPath(raw, text);
    if (isRemoteUrl(text)) {
      const parsed = parseRemoteUrl(text);
      if (!this.remote) {
        throw new AnchorError({
          code: "REMOTE_UNAVAILABLE",
          message: `Remote paths are not available in this build (asked for ${
            JSON.stringify(text)
          }).`,
          hint: "Use a local path.",
          fault: "environment",
        });
      }
      await guard?.beforeConnect?.(parsed.target, text);
      const host = await this.remote.open(parsed.target);
      const backend = host.files;
      let path = parsed.path;
      if (path === "~" || path.startsWith("~/")) {
        path = joinPath(await backend.homeDir(), path.slice(2));
      }
      path = joinPath("/", path);
      return {
        host,
        backend,
        path,
        url: formatRemoteUrl(parsed.target, path),
        remote: parsed.target,
      };
    }
    const rules = cwd.backend.paths;
    const refusal = rules.refusal(text);
    if (refusal) throw refusal;
    if (text === "~" || text.startsWith("~/") || (rules.sep === "\\" && text.startsWith("~\\"))) {
      const home = await cwd.backend.homeDir();
      return this.sibling(cwd, rules.resolve(home, text.slice(2)));
    }
    const path = rules.isAbsolute(text) ? rules.normalize(text) : rules.resolve(cwd.path, text);
    return this.sibling(cwd, path);
  }
}

/** Another path on the same backend (and host) as `base`. */
export function siblingLocation(base: Location, path: string): Location {
  const { host, backend } = base;
  return base.remote
    ? { host, backend, path, url: formatRemoteUrl(base.remote, path), remote: base.remote }
    : { host, backend, path, url: path };
}

/**
 * No file name can hold a NUL (the system ends the name there): refused as the caller's mistake
 * before any lookup, rather than failing later as an I/O error that invites a retry.
 */
function nulInPath(raw: string, text: string): AnchorError {
  const without = text.replaceAll("\0", "");
  return new AnchorError({
    code: "INVALID_PATH",
    message: `The path ${JSON.stringify(raw)} holds a NUL character (\\u0000), which no file ` +
      "name can contain; nothing was read or written.",
    hint: without === ""
      ? 'Pass a file or directory path, e.g. "src/main.ts".'
      : `Name the file without it: ${JSON.stringify(without)}.`,
  });
}
