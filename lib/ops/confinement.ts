// Opt-in confinement of the file tools (`--allow DIR`, `--roots`): every path a file tool resolves
// goes through `Confinement.check` (called by Locations.resolve), which resolves symlinks and `..`
// on the path's own backend and refuses a real path outside the allowed directories. It does not
// and cannot confine the shell: a command line can reach anything the user can.

import { AnchorError } from "../core/errors.ts";
import { type Guide, guide, joinGuide, step } from "../core/next_step.ts";
import {
  type AllowedDir,
  allowingDir,
  describeAllowed,
  intersectAllowed,
} from "../core/path/confinement.ts";
import { hasRawBytes } from "../core/path/path_quote.ts";
import type { Location, Locations } from "./location.ts";
import type { PathGuard } from "./ports/path_guard.ts";
import { formatRemoteUrl, type RemoteTarget } from "../core/ssh/remote_url.ts";
import { RootsState, type RootsWait } from "./roots_state.ts";
import type { FileBackend } from "./ports/file_backend.ts";

/** How long a file tool waits for the client's first roots answer before refusing. */
const ROOTS_WAIT_MS = 5_000;

interface ConfinementOptions {
  /** Directories from --allow (local paths or ssh:// URLs); empty: no --allow. */
  allow: readonly string[];
  /** --roots: the client's roots become the allowed set (intersected with --allow). */
  roots: boolean;
}

/**
 * The real path of `location`: symlinks and `..` resolved by its backend. For a path that does not
 * exist yet (a new file, mkdirp), the nearest ancestor that resolves is resolved and the rest is
 * appended: that is where the write would land. Components that cannot be resolved cannot be
 * traversed by the write either (same process, same permissions).
 */
async function realPathOf(location: Location): Promise<string> {
  return (await resolveReal(location)).real;
}

/**
 * `realPathOf`, plus the name of a dangling symlink when the first missing component is one: its
 * target is unknown (no lstat/readlink in the backend interface), so a write through it cannot
 * be checked.
 */
export async function resolveReal(
  location: Location,
): Promise<{ real: string; dangling?: string }> {
  const found = await resolveRealText(location);
  // The real path may lie on another volume than the path as named (a symlink to a USB stick).
  await location.backend.learnCase?.(found.real);
  return found;
}

/** resolveReal's lookup: symlinks and `..` resolved by the backend, no probe. */
async function resolveRealText(
  location: Location,
): Promise<{ real: string; dangling?: string }> {
  const rules = location.backend.paths;
  const tail: string[] = [];
  let path = location.path;
  for (let i = 0; i < 4096; i++) {
    try {
      const real = await location.backend.realPath(path);
      if (tail.length === 0) return { real };
      const first = tail[0]!;
      const dangling = await isSymlink(location, rules.resolve(path, first), first);
      const full = rules.resolve(real, tail.join(rules.sep));
      return dangling ? { real: full, dangling: rules.resolve(path, first) } : { real: full };
    } catch {
      if (rules.parent(path) === path) break;
      tail.unshift(rules.baseName(path));
      path = rules.parent(path);
    }
  }
  return { real: location.path };
}

/**
 * Whether `path` (whose name is `name`) is a symlink: by readlink where the backend has it (one
 * call, where a listing of a big folder would cost a read of every entry), else by the listing.
 */
async function isSymlink(location: Location, path: string, name: string): Promise<boolean> {
  const backend = location.backend;
  if (backend.readLink && !hasRawBytes(path)) {
    return (await backend.readLink(path).catch(() => null)) !== null;
  }
  const entries = await backend.readDir(backend.paths.parent(path)).catch(() => []);
  return entries.some((e) => e.name === name && e.type === "symlink");
}

export class Confinement implements PathGuard {
  /** What --roots falls back to while the client has no roots: --allow, else the start dir. */
  private fallback: AllowedDir[] = [];
  /** The client's roots as far as known (--roots): lib/ops/roots_state.ts. */
  readonly roots: RootsState = new RootsState();
  /** The local disk's confined view, when the kernel confines it (FileBackend.confine). */
  private kernel: { backend: FileBackend; method: "openat2" | "openat" } | undefined;
  /** The directories last handed to the kernel, and where they came from (for its refusals). */
  private published: { dirs: AllowedDir[]; source: string } = { dirs: [], source: "--allow" };

  private constructor(
    private readonly locations: Locations,
    /** The resolved --allow directories; null when --allow was not given. */
    private readonly allowDirs: AllowedDir[] | null,
    readonly rootsMode: boolean,
  ) {}

  /**
   * Resolves every --allow directory now (a missing one is a start-up error, not a silent hole)
   * and, with --roots, the start directory as the fallback. Returns undefined when neither
   * --allow nor --roots was given: nothing is confined.
   */
  static async create(
    locations: Locations,
    cwd: Location,
    options: ConfinementOptions,
  ): Promise<Confinement | undefined> {
    if (options.allow.length === 0 && !options.roots) return undefined;
    const allowDirs: AllowedDir[] = [];
    for (const raw of options.allow) {
      const location = await locations.locate(raw, cwd);
      const info = await location.backend.stat(location.path);
      if (info?.type !== "dir") {
        throw new AnchorError({
          code: "INVALID_FLAG",
          message: `--allow ${JSON.stringify(raw)} is ${
            info ? "not a directory" : "missing"
          }; --allow takes a directory that exists.`,
          hint: "Pass an existing directory, e.g. --allow . or --allow ssh://box/srv/app.",
        });
      }
      const dir = await allowedDirOf(locations, location);
      const key = location.backend.paths.key(dir.path);
      const same = allowDirs.some((d) =>
        d.backendId === dir.backendId && location.backend.paths.key(d.path) === key
      );
      if (!same) allowDirs.push(dir);
    }
    const confinement = new Confinement(
      locations,
      options.allow.length > 0 ? allowDirs : null,
      options.roots,
    );
    confinement.publish();
    return confinement;
  }

  /** With --roots: the start directory, used (unless --allow is given) until roots arrive. */
  async setStartDir(start: Location): Promise<void> {
    this.fallback = this.allowDirs ?? [await allowedDirOf(this.locations, start)];
    this.publish();
  }

  /**
   * How local paths are confined: "openat2" or "openat" (opened beneath the allowed directories
   * in the kernel: FileBackend.confine), or "path" (this check alone: no FFI, or not Linux).
   */
  get method(): "openat2" | "openat" | "path" {
    return this.kernel?.method ?? "path";
  }

  /** The backend of an approved location: the local disk's confined view when there is one. */
  backendFor(backend: FileBackend): FileBackend {
    return this.kernel && backend === this.locations.local ? this.kernel.backend : backend;
  }

  /**
   * Hands the directories that apply now to the local disk, to hold and open beneath. While a
   * roots/list answer is awaited the kernel keeps the last set; `current` refuses meanwhile.
   */
  private publish(): void {
    const now = this.effective();
    if (now === null) return;
    this.published = now;
    const local = now.dirs.filter((d) => d.backendId === this.locations.local.id);
    this.kernel = this.locations.local.confine?.(
      local.map((d) => ({ path: d.path, ...(d.named !== undefined && { named: d.named }) })),
      (path, real) =>
        outsideRefusal(
          this.locations,
          this.locations.localAt(path),
          real,
          undefined,
          this.published,
          this.refusedRootsNote(this.published.source),
        ),
    ) ?? this.kernel;
  }

  /** The --allow directories (for the start-up warning and the session's start). */
  get allowed(): readonly AllowedDir[] {
    return this.allowDirs ?? [];
  }

  /** True when `location` is inside an --allow directory (true when --allow was not given). */
  async allowsByFlag(location: Location): Promise<boolean> {
    return this.allowDirs === null ||
      allowingDir(this.allowDirs, location.backend.id, await realPathOf(location)) !== undefined;
  }

  /**
   * A roots/list request goes out: its number, for `answerRoots` or `rootsFailed`. File tools
   * wait for its answer (bounded) instead of using what was known before.
   */
  rootsRequested(): number {
    return this.roots.request();
  }

  /**
   * The answer to request `seq`: its local file:// roots become the allowed set (intersected with
   * --allow), unless a later request's answer is already in force (then it is dropped). Returns
   * the URIs refused (other schemes, other hosts), or null when the answer was dropped.
   */
  async answerRoots(seq: number, uris: readonly string[]): Promise<string[] | null> {
    if (!this.roots.mayApply(seq)) return null;
    const dirs: AllowedDir[] = [];
    const refused: string[] = [];
    for (const uri of uris) {
      const path = this.locations.local.paths.fromFileUri(uri);
      if (path === undefined) {
        refused.push(uri);
        continue;
      }
      dirs.push(await allowedDirOf(this.locations, this.locations.localAt(path)));
    }
    // Checked again after the lookups: a later answer may have come in meanwhile.
    if (!this.roots.apply(seq, dirs, refused)) return null;
    this.publish();
    return refused;
  }

  /** Request `seq` failed: while it is the newest, file tools refuse (and ask again). */
  rootsFailed(seq: number, reason: string): void {
    this.roots.fail(seq, reason);
  }

  /** The client's roots as one answer (a request of its own): for tests and embedders. */
  async setRoots(uris: readonly string[]): Promise<string[]> {
    return await this.answerRoots(this.rootsRequested(), uris) ?? [];
  }

  /**
   * The directories that apply now; null: not confined. With --roots, waits (at most
   * ROOTS_WAIT_MS) for the answer to the newest roots/list, and refuses (ROOTS_PENDING) rather
   * than use roots from before a change.
   */
  async current(): Promise<{ dirs: AllowedDir[]; source: string } | null> {
    if (!this.rootsMode) {
      return this.allowDirs ? { dirs: this.allowDirs, source: "--allow" } : null;
    }
    const wait = await this.roots.settle(ROOTS_WAIT_MS);
    if (wait.kind !== "known") throw rootsPending(wait);
    return this.effective();
  }

  /** The directories that apply now, without waiting for roots on their way. */
  private effective(): { dirs: AllowedDir[]; source: string } | null {
    if (!this.rootsMode) {
      return this.allowDirs ? { dirs: this.allowDirs, source: "--allow" } : null;
    }
    const rootDirs = this.roots.dirs;
    if (rootDirs === undefined) {
      return { dirs: this.fallback, source: this.allowDirs ? "--allow" : "the start directory" };
    }
    return this.allowDirs
      ? {
        dirs: intersectAllowed(rootDirs, this.allowDirs),
        source: "the client's roots within --allow",
      }
      : { dirs: rootDirs, source: "the client's roots" };
  }

  /** The client's roots that were refused, for a refusal that names the roots in force. */
  private refusedRootsNote(source: string): string {
    const refused = this.roots.refused;
    if (!source.includes("roots") || refused.length === 0) return "";
    const named = refused.slice(0, 3).map((u) => JSON.stringify(u.slice(0, 200))).join(", ");
    return ` The client also offered ${named}${refused.length > 3 ? ", ..." : ""}: refused, ` +
      "as only local file:// roots (no host, or localhost) can be confined to.";
  }

  /** True when `location` is inside the directories that apply now. */
  async contains(location: Location): Promise<boolean> {
    const now = await this.current();
    return now === null ||
      allowingDir(now.dirs, location.backend.id, await realPathOf(location)) !== undefined;
  }

  /**
   * True when the dangling link `dangling` on the way to `location` would lead inside `dirs` (its
   * target, with the rest of the path, resolves inside): then the refusal is about the dangling
   * link, not about being outside.
   */
  private async leadsInside(
    location: Location,
    dangling: string,
    dirs: readonly AllowedDir[],
  ): Promise<boolean> {
    const target = await linkTargetOf(location, dangling);
    if (target === undefined) return false;
    const { real } = await resolveReal(this.locations.sibling(location, target));
    return allowingDir(dirs, location.backend.id, real) !== undefined;
  }

  /**
   * Refuses (OUTSIDE_ALLOWED) a remote path on a host that no allowed directory is on, before the
   * connection: otherwise a refused path would still make the server look the host up, connect
   * and offer the user's SSH keys to it. The host is compared as written (`ssh://box` allows
   * `ssh://box/...`, not the same machine spelled `ssh://user@box:22`).
   */
  async beforeConnect(target: RemoteTarget, url: string): Promise<void> {
    const now = await this.current();
    if (now === null) return;
    const host = formatRemoteUrl(target, "/");
    if (now.dirs.some((d) => d.backendId !== "local" && `${d.url}/`.startsWith(host))) return;
    const first = now.dirs[0];
    throw new AnchorError({
      code: "OUTSIDE_ALLOWED",
      message: `${JSON.stringify(url)} is on ${JSON.stringify(host.slice(0, -1))}, where this ` +
        `server may use no directory (${now.source}: ${describeAllowed(now.dirs)}); nothing was ` +
        "read or written, and no connection was made.",
      hint: joinGuide(
        first ? usePathInside(first.url) : "No directory is allowed at all. ",
        "If the user wants that host reachable, they must restart anchorfs with --allow ",
        `${JSON.stringify(`${host}DIR`)} (the host written the same way).`,
      ),
    });
  }

  /**
   * Refuses (OUTSIDE_ALLOWED) a location whose real path is outside the allowed directories;
   * returns the real path it approved (writes go there: see Location.real).
   */
  async check(location: Location): Promise<string | undefined> {
    const now = await this.current();
    if (now === null) return undefined;
    const { real, dangling } = await resolveReal(location);
    if (!dangling && allowingDir(now.dirs, location.backend.id, real) !== undefined) return real;
    if (dangling && await this.leadsInside(location, dangling, now.dirs)) {
      throw await danglingRefusal(this.locations, location, dangling);
    }
    throw outsideRefusal(
      this.locations,
      location,
      real,
      dangling,
      now,
      this.refusedRootsNote(now.source),
    );
  }
}

/**
 * OUTSIDE_ALLOWED for `location`, whose real path `real` is outside `now.dirs` (or which goes
 * through the dangling link `dangling`): the check's refusal, and the kernel's when an operation
 * found the path leading outside after the check (a directory swapped for a symlink). `note`: the
 * client's refused roots, if any.
 */
function outsideRefusal(
  locations: Locations,
  location: Location,
  real: string,
  dangling: string | undefined,
  now: { dirs: AllowedDir[]; source: string },
  note: string,
): AnchorError {
  const realUrl = locations.sibling(location, real).url;
  const via = dangling
    ? `, which goes through the symlink ${
      JSON.stringify(locations.sibling(location, dangling).url)
    } whose target does not exist (so it cannot be checked),`
    : real === location.path
    ? ""
    : `, which resolves to ${JSON.stringify(realUrl)}`;
  const first = now.dirs[0];
  const restart = now.source.includes("roots")
    ? "add that directory to the client's roots (workspace folders)"
    : `restart anchorfs with one more --allow naming a directory that holds ${
      JSON.stringify(realUrl)
    }`;
  return new AnchorError({
    code: "OUTSIDE_ALLOWED",
    message: `${JSON.stringify(location.url)}${via} is outside the directories this server ` +
      `may use (${now.source}: ${describeAllowed(now.dirs)}); nothing was read or written.` + note,
    hint: joinGuide(
      first ? usePathInside(first.url) : "No directory is allowed at all. ",
      `If the user wants this path reachable, they must ${restart}.`,
    ),
  });
}

/** The refusal while the newest roots/list is unanswered or failed: nothing is guessed. */
function rootsPending(wait: Exclude<RootsWait, { kind: "known" }>): AnchorError {
  const what = wait.kind === "failed"
    ? `The client's answer to roots/list failed (${wait.reason.slice(0, 200)}); it was asked again`
    : wait.changed
    ? `The client said its roots changed and has not answered roots/list after ${
      ROOTS_WAIT_MS / 1000
    } s`
    : `The client has not answered roots/list after ${ROOTS_WAIT_MS / 1000} s`;
  return new AnchorError({
    code: "ROOTS_PENDING",
    message: `${what}; this server (--roots) uses no file path until it knows the client's ` +
      "current roots (not the ones from before). Nothing was read or written.",
    hint: "Retry the same call in a moment; if it keeps failing, the client does not answer " +
      "roots/list: ask the user to restart anchorfs with --allow DIR instead.",
    fault: "environment",
  });
}

function usePathInside(url: string): Guide {
  return guide`Use a path inside ${JSON.stringify(url)}, e.g. ${step("view", { path: url })}. `;
}

/**
 * The refusal for a dangling symlink that sits inside the allowed directories: the path is not
 * "outside", its target is unknown, so it cannot be checked. Names where the link points, so the
 * caller can name that target directly (and have it checked like any path).
 */
/** Where the dangling link `dangling` on the way to `location` leads, with the rest appended. */
async function linkTargetOf(location: Location, dangling: string): Promise<string | undefined> {
  const stored = await location.backend.readLink?.(dangling).catch(() => null) ?? null;
  if (stored === null) return undefined;
  const rules = location.backend.paths;
  const target = rules.isAbsolute(stored)
    ? rules.normalize(stored)
    : rules.resolve(rules.parent(dangling), stored);
  return dangling === location.path
    ? target
    : rules.resolve(target, location.path.slice(dangling.length + 1));
}

async function danglingRefusal(
  locations: Locations,
  location: Location,
  dangling: string,
): Promise<AnchorError> {
  const target = await linkTargetOf(location, dangling);
  const meant = target === undefined ? undefined : locations.sibling(location, target).url;
  const link = locations.sibling(location, dangling).url;
  const what = dangling === location.path
    ? `${JSON.stringify(location.url)} is a symlink whose target does not exist`
    : `${JSON.stringify(location.url)} goes through the symlink ${
      JSON.stringify(link)
    }, whose target does not exist`;
  return new AnchorError({
    code: "DANGLING_SYMLINK",
    message: `${what}; with confinement on, a path through a dangling symlink is refused ` +
      "(where it would lead cannot be checked). Nothing was read or written.",
    hint: meant === undefined ? "Name the file by a path without that link." : joinGuide(
      "If the link's target is what you mean, name it directly (it is checked like any path): ",
      step("text_editor", { command: "create", path: meant, file_text: "line one\n" }),
      ".",
    ),
  });
}

async function allowedDirOf(locations: Locations, location: Location): Promise<AllowedDir> {
  const real = await realPathOf(location);
  return {
    backendId: location.backend.id,
    path: real,
    url: locations.sibling(location, real).url,
    ...(real !== location.path && { named: location.path }),
    paths: location.backend.paths,
  };
}
