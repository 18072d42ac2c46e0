// What every edit shares: resolving the target, reading it under the file's edit lock, writing the
// new document atomically with a check that the file did not change since it was read, the undo
// record, the result diff with fresh ids, and updating what the agent was shown.

import { sameFiles } from "../ports/file_backend.ts";
import { AnchorError } from "../../core/errors.ts";
import type { ShownMemory } from "../../core/edit/shown_lines.ts";
import { renderEditDiff, type ShownLine } from "../../core/edit/edit_diff.ts";
import { renderLine } from "../../core/edit/line_id.ts";
import {
  decodeText,
  describeEncoding,
  encodeDoc,
  type TextDoc,
} from "../../core/text/text_file.ts";
import { type Guide, guide, joinGuides, step } from "../../core/next_step.ts";
import type { Location, Locations } from "../location.ts";
import { fileKey, logOwnEdit, type Session } from "../session.ts";
import { splicesBetween, writtenRegions } from "../../core/edit/edit_log.ts";
import { readTextFile, type TextFile } from "../text_io.ts";
import type { FileLocks } from "../../core/file_locks.ts";
import type { Outliner } from "../outline/outliner.ts";
import type { ReadLimits } from "../read_limits.ts";
import { fingerprintBytes, type UndoStore } from "./undo_store.ts";
import { plural } from "../../core/plural.ts";
import { needsQuoting, quotePath, quotePathAlways } from "../../core/path/path_quote.ts";
import { resolveReal } from "../confinement.ts";
import {
  type ChangedAtReplace,
  changedAtReplace,
  changedAtReplaceText,
} from "../ports/file_backend.ts";
import type { ExecFileGuard } from "./exec_guard.ts";

/** The services an edit needs (a subset of Services, so tests can pass just these). */
export interface EditServices {
  locations: Locations;
  undo: UndoStore;
  editLocks: FileLocks;
  /** Size limit and read budget (lib/ops/read_limits.ts); defaults when left out (tests). */
  reads?: ReadLimits;
  /** Outlines, for extract_lines' from_symbol. */
  outliner?: Outliner;
  /** Set by --no-shell (or --protect-exec-files): files tools run as commands are not written. */
  execFiles?: ExecFileGuard;
}

export interface EditOptions {
  /** Compute and show the diff, write nothing (CLI --dry-run). */
  dryRun?: boolean;
}

export function resolvePath(
  services: EditServices,
  session: Session,
  raw: unknown,
  what = "path",
): Promise<Location> {
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new AnchorError({
      code: "MISSING_ARGUMENT",
      message: `${what} is missing: name the file to edit.`,
      hint:
        `Pass "${what}": a path relative to the working directory, absolute, or ssh://host/path.`,
    });
  }
  return services.locations.resolve(raw, session.cwd);
}

/**
 * `resolvePath` for a tool that writes the file: also resolves its real path (symlinks followed,
 * as editors do), so the write, its lock and its content check all apply to a symlink's target
 * and the link stays a link. Under --allow the confinement check already resolved it, and that
 * very path is used: no second lookup of the path text between the check and the write. A path
 * through a symlink whose target is missing is refused (DANGLING_SYMLINK).
 */
export async function resolveWritePath(
  services: EditServices,
  session: Session,
  raw: unknown,
  what = "path",
): Promise<Location> {
  const location = await resolvePath(services, session, raw, what);
  const target = await withRealPath(services, session, location);
  await services.execFiles?.check(target, "edit");
  return target;
}

async function withRealPath(
  services: EditServices,
  session: Session,
  location: Location,
): Promise<Location> {
  if (location.real !== undefined) return location;
  const { real, dangling } = await resolveReal(location);
  if (dangling !== undefined) {
    throw await danglingLinkError(services.locations, session, location, dangling);
  }
  return real === location.path ? location : { ...location, real };
}

/** Where a write of `location` lands: its real path when resolved, else the path as named. */
export function writePathOf(location: Location): string {
  return location.real ?? location.path;
}

/**
 * A write through a dangling symlink is refused rather than followed: the link may point anywhere
 * (a planted link is the classic way to make a writer create a file elsewhere), and following it
 * would create a file the caller never named.
 */
async function danglingLinkError(
  locations: Locations,
  session: Session,
  location: Location,
  dangling: string,
): Promise<AnchorError> {
  const stored = await location.backend.readLink?.(dangling).catch(() => null) ?? null;
  const rules = location.backend.paths;
  const targetPath = stored === null
    ? undefined
    : rules.isAbsolute(stored)
    ? rules.normalize(stored)
    : rules.resolve(rules.parent(dangling), stored);
  // The target may itself be a link that does not resolve (a loop, a chain ending nowhere).
  const chained = targetPath !== undefined &&
    (await location.backend.readLink?.(targetPath).catch(() => null) ?? null) !== null;
  const linkName = displayPathOf(session, locations.sibling(location, dangling));
  const through = dangling === location.path
    ? ""
    : `${quotePathAlways(displayPathOf(session, location))} goes through `;
  const pointsTo = targetPath === undefined
    ? "a symlink whose target does not exist"
    : `a symlink to ${quotePathAlways(locations.sibling(location, targetPath).url)}, which ${
      chained
        ? "is a symlink that does not resolve (a loop or a chain ending nowhere)"
        : "does not exist"
    }`;
  // The path the caller probably means: the link's target with the rest of the path appended.
  const meant = targetPath === undefined || chained ? undefined : locations.sibling(
    location,
    dangling === location.path
      ? targetPath
      : rules.resolve(targetPath, location.path.slice(dangling.length + 1)),
  ).url;
  return new AnchorError({
    code: "DANGLING_SYMLINK",
    message: `${through}${quotePathAlways(linkName)}${through === "" ? " is" : ","} ${pointsTo}; ` +
      "anchorfs does not write " +
      "through a symlink whose target is missing (it could point anywhere), so nothing was " +
      "written.",
    hint: guide`${
      meant === undefined
        ? ""
        : guide`If that target is the file you mean, name it: ${
          step("text_editor", {
            command: "create",
            path: quotePath(meant),
            file_text: "line one\n",
          })
        }. `
    }To put a regular file in the link's place, remove the link ${
      needsQuoting(linkName)
        ? `${quotePathAlways(linkName)} first with the shell`
        : `first (shell: rm ${JSON.stringify(linkName)})`
    }, then create it.`,
  });
}

/** How a file is named in results: relative to the working directory when inside it. */
export function displayPathOf(session: Session, location: Location): string {
  if (!sameFiles(location.backend, session.cwd.backend)) return location.url;
  return location.backend.paths.below(session.cwd.path, location.path) ?? location.url;
}

export function shownMemory(session: Session, location: Location): ShownMemory {
  const key = fileKey(location);
  return {
    known: session.shown.hasFile(key),
    evicted: session.shown.evictedFrom(key),
    hashAt: (line) => session.shown.shownHash(key, line),
    printAt: (line) => session.shown.shownFingerprint(key, line),
  };
}

/** Records every `N:hh|content` row of a report as shown (see `ShownLines.recordRendered`). */
export function recordRenderedLines(session: Session, location: Location, text: string): void {
  session.shown.recordRendered(fileKey(location), text);
}

/** Runs an edit body; ids shown in a failure's text count as shown, so a retry can use them. */
export async function withShownFailures<T>(
  session: Session,
  location: Location,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof AnchorError && e.detail) recordRenderedLines(session, location, e.detail);
    throw e;
  }
}

interface CommitRequest {
  file: TextFile;
  doc: TextDoc;
  /** The tool/command name for the result and the undo history. */
  action: string;
  /** Sentences after the headline (how a match was found, what was recovered). */
  notes?: string[];
  session: Session;
  options?: EditOptions;
  /** The file does not exist yet: the write must not find one, and undo removes it. */
  isNew?: boolean;
}

/**
 * Writes the new document (unless dry run) and returns the result with the diff, the calls it
 * suggests kept as steps for each adapter to write in its own syntax.
 */
export async function commitEdit(services: EditServices, request: CommitRequest): Promise<Guide> {
  const { file, doc, session } = request;
  const location = file.location;
  const name = displayPathOf(session, location);
  const via = location.real !== undefined && location.real !== location.path
    ? ` (via symlink to ${
      quotePathAlways(services.locations.sibling(location, location.real).url)
    })`
    : "";
  const bytes = encodeDoc(doc);
  const diff = renderEditDiff(file.doc.lines, doc.lines);
  const dryRun = request.options?.dryRun === true;
  if (!dryRun) {
    const isNew = request.isNew === true;
    await writeChecked(location, name, bytes, file, isNew, diff.shown[0]?.line ?? 1, services);
    services.undo.push(fileKey(location), {
      action: request.action,
      before: isNew ? null : file.bytes,
      mode: file.info.mode,
      after: fingerprintBytes(bytes),
      url: location.url,
    });
    rememberAfterWrite(session, location, file.doc.lines, doc.lines, diff.shown);
    const splices = splicesBetween(file.doc.lines, doc.lines);
    logOwnEdit(session, fileKey(location), {
      splices,
      after: bytesPrint(bytes),
      at: diff.shown[0]?.line ?? 1,
      regions: writtenRegions(file.doc.lines, doc.lines, splices),
    });
  }
  const counts = `${plural(diff.removed, "line")} removed, ${plural(diff.added, "line")} added`;
  const lines: (string | Guide)[] = [
    `${dryRun ? "Dry run, nothing written: would edit" : "Edited"} ${
      quotePath(name)
    }${via} (${request.action}; ${counts}; ${plural(doc.lines.length, "line")} now${
      formatNote(doc)
    }).`,
    ...(request.notes ?? []),
    diff.text,
  ];
  if (diff.truncated) {
    lines.push(
      guide`... diff cut at 400 lines; ${step("view", { path: quotePath(name) })} for the rest.`,
    );
  }
  return resultLines(lines);
}

/** A result's lines joined, the empty ones left out; guides keep their steps. */
export function resultLines(lines: readonly (string | Guide)[]): Guide {
  return joinGuides(lines.filter((l) => l !== ""), "\n");
}

function formatNote(doc: TextDoc): string {
  const parts: string[] = [];
  if (doc.encoding !== "utf-8" || doc.bom) parts.push(describeEncoding(doc));
  if (doc.eols.some((e) => e === "\r\n")) {
    parts.push(doc.eols.some((e) => e === "\n") ? "mixed line endings kept" : "CRLF kept");
  }
  if (doc.lines.length > 0 && doc.eols[doc.eols.length - 1] === "") parts.push("no final newline");
  return parts.length > 0 ? `; ${parts.join(", ")}` : "";
}

/**
 * Writes `bytes` over the file only if it is still what `file` read. When it changed in between,
 * nothing is written and the error shows the current content around `nearLine` with fresh ids.
 */
async function writeChecked(
  location: Location,
  name: string,
  bytes: Uint8Array,
  file: TextFile,
  isNew: boolean,
  nearLine: number,
  services: EditServices,
): Promise<void> {
  try {
    await location.backend.writeFileAtomic(writePathOf(location), bytes, {
      expect: isNew ? null : { bytes: file.bytes },
    });
  } catch (e) {
    if (e instanceof AnchorError && e.code === "FILE_CHANGED") {
      throw await changedOnDisk(services.locations, location, name, nearLine, changedAtReplace(e));
    }
    throw e;
  }
}

/**
 * FILE_CHANGED for an edit, with the current lines around `nearLine` and their fresh ids.
 * `atReplace`: the change was found at the write's last step (see ChangedAtReplace).
 */
async function changedOnDisk(
  locations: Locations,
  location: Location,
  name: string,
  nearLine: number,
  atReplace?: ChangedAtReplace,
): Promise<AnchorError> {
  let detail = "The file is gone now.";
  let from = Math.max(1, nearLine - 3);
  let to = nearLine + 3;
  try {
    const now = await readTextFile(locations, location);
    const lines = now.doc.lines;
    from = Math.max(1, Math.min(from, lines.length - 6));
    to = Math.min(lines.length, Math.max(to, from + 6));
    const shown: string[] = [];
    for (let n = from; n <= to; n++) shown.push(renderLine(n, lines[n - 1]!));
    detail = `Current content of lines ${from}-${to}:\n${shown.join("\n")}`;
  } catch (e) {
    if (e instanceof AnchorError) detail = `Reading it again failed: ${e.message}`;
  }
  return new AnchorError({
    code: "FILE_CHANGED",
    message: atReplace
      ? `${JSON.stringify(name)} ${changedAtReplaceText(atReplace)}`
      : `${
        JSON.stringify(name)
      } changed on disk after it was read for this edit (another program wrote it); nothing ` +
        "was written.",
    detail,
    hint: guide`Retry the edit with the fresh ids above, or ${
      step("view", { path: quotePath(name), start: from, end: Math.max(from, to) })
    } first.`,
    fault: "environment",
  });
}

/**
 * After a write, what the agent was shown is still true of the unchanged head and tail: the head
 * keeps its numbers, the tail moves by the change in line count (the result says how later line
 * numbers moved, so an id the agent shifts itself names a line it was shown). Then the lines
 * shown in the result diff are added.
 */
function rememberAfterWrite(
  session: Session,
  location: Location,
  oldLines: readonly string[],
  newLines: readonly string[],
  diffShown: readonly ShownLine[],
): void {
  const key = fileKey(location);
  const shortest = Math.min(oldLines.length, newLines.length);
  let head = 0;
  while (head < shortest && oldLines[head] === newLines[head]) head++;
  const keep: { line: number; hash: number; print: number | undefined }[] = [];
  const collect = (from: number, to: number, shift = 0) => {
    for (let n = from; n <= to; n++) {
      const h = session.shown.shownHash(key, n);
      if (h !== undefined) {
        keep.push({ line: n + shift, hash: h, print: session.shown.shownFingerprint(key, n) });
      }
    }
  };
  if (session.shown.hasFile(key)) {
    collect(1, Math.min(head, 50_000));
    let tail = 0;
    while (
      tail < shortest - head &&
      oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
    ) tail++;
    // Old numbers of the unchanged tail; each moves by the change in line count.
    const from = Math.max(head + 1, oldLines.length - Math.min(tail, 50_000) + 1);
    collect(from, oldLines.length, newLines.length - oldLines.length);
  }
  session.shown.replaceFile(key, []);
  recordShown(session, key, [...keep, ...diffShown]);
}

/** Records shown lines, with their fingerprints where known. */
export function recordShown(
  session: Session,
  key: string,
  lines: readonly { line: number; hash: number; print?: number | undefined }[],
): void {
  for (const { line, hash, print } of lines) {
    if (print === undefined) session.shown.record(key, line, [hash]);
    else session.shown.recordWithPrints(key, line, [hash], [print]);
  }
}

/** The fingerprint the edit log compares: size and FNV-1a of the bytes. */
export function bytesPrint(bytes: Uint8Array): string {
  const { size, fingerprint } = fingerprintBytes(bytes);
  return `${size}:${fingerprint}`;
}

/** Decodes bytes for an undo diff; null when they are not text. */
export function decodeForDiff(bytes: Uint8Array | null): TextDoc | null {
  if (bytes === null) return { encoding: "utf-8", bom: false, lines: [], eols: [] };
  const decoded = decodeText(bytes);
  return decoded.kind === "text" ? decoded.doc : null;
}

/**
 * Runs `body` under the edit lock of `location`: first this process's queue for the file, then
 * the backend's write lock, which every anchorfs process takes (so the read an edit is based on
 * and its write happen with no other anchorfs write of that file in between). Both are keyed by
 * the path the write lands on: edits through a symlink and through its target share one lock.
 */
export function underLock<T>(
  services: EditServices,
  location: Location,
  body: () => Promise<T>,
): Promise<T> {
  const at = writePathOf(location);
  return services.editLocks.run(
    fileKey({ ...location, path: at }),
    () => location.backend.withWriteLock(at, body),
  );
}

/** After a file head: how many lines are not shown and the view that shows them. */
export function restNote(shownPath: string, rest: number, total: number): string | Guide {
  if (rest <= 0) return "";
  return guide`[… ${plural(rest, "more line")} not shown: ${
    step("view", { path: shownPath, start: total - rest + 1 })
  }]`;
}
