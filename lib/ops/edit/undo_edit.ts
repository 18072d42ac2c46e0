// text_editor undo_edit: puts back what the file was before this server's last edit of it (its
// bytes and mode, or the symlink a delete removed), only when nothing else changed it since; an
// undo over someone else's change is refused with the current lines and the call that proceeds.

import { AnchorError } from "../../core/errors.ts";
import { renderEditDiff, renderFileHead } from "../../core/edit/edit_diff.ts";
import { splicesBetween } from "../../core/edit/edit_log.ts";
import { formatLineId, renderLine } from "../../core/edit/line_id.ts";
import { type Guide, guide, joinGuide, step } from "../../core/next_step.ts";
import { quotePath } from "../../core/path/path_quote.ts";
import { plural } from "../../core/plural.ts";
import { fileKey, type Session } from "../session.ts";
import { type Location, siblingLocation } from "../location.ts";
import { createReadLimits } from "../read_limits.ts";
import { assertRegularFile } from "../../core/read_refusals.ts";
import {
  decodeForDiff,
  displayPathOf,
  type EditServices,
  recordRenderedLines,
  recordShown,
  resolveWritePath,
  restNote,
  resultLines,
  underLock,
  writePathOf,
} from "./commit.ts";
import { fingerprintBytes, type UndoEntry } from "./undo_store.ts";

/** Undoes the last edit of `rawPath`; the result keeps the calls it suggests as steps. */
export async function undoEdit(
  services: EditServices,
  session: Session,
  rawPath: string,
): Promise<Guide> {
  const location = await resolveWritePath(services, session, rawPath);
  const key = fileKey(location);
  return await underLock(services, location, async () => {
    const entry = await services.undo.peek(key);
    if (!entry) throw await nothingToUndo(session, location);
    if (entry.link !== undefined) return await restoreLink(services, session, location, entry);
    const current = await readCurrent(services, location, entry);
    if (current === undefined) throw undoConflict(session, location, entry, null);
    const now = current === null ? null : fingerprintBytes(current);
    const matches = entry.after === null
      ? now === null
      : now !== null && now.size === entry.after.size &&
        now.fingerprint === entry.after.fingerprint;
    if (!matches) throw undoConflict(session, location, entry, current);
    if (entry.before === null) {
      await location.backend.removeFile(writePathOf(location));
    } else {
      if (current === null) {
        await location.backend.mkdirp(location.backend.paths.parent(writePathOf(location)));
      }
      await location.backend.writeFileAtomic(writePathOf(location), entry.before, {
        ...(entry.mode !== null ? { mode: entry.mode } : {}),
        expect: current ? { bytes: current } : null,
      });
    }
    services.undo.pop(key);
    return undoneText(services, session, location, entry, current);
  });
}

/**
 * NOTHING_TO_UNDO, with the call that shows what is there: the file itself, or (when the path
 * names nothing) its folder, whose listing gives the right name.
 */
async function nothingToUndo(session: Session, location: Location): Promise<AnchorError> {
  const name = displayPathOf(session, location);
  const exists = await location.backend.stat(location.path).then((i) => i !== null, () => false);
  const folder = displayPathOf(
    session,
    siblingLocation(location, location.backend.paths.parent(location.path)),
  ) || ".";
  return new AnchorError({
    code: "NOTHING_TO_UNDO",
    message: `No edit of ${
      JSON.stringify(name)
    } to undo: this server has not changed it (or every edit was undone already).`,
    hint: exists
      ? guide`undo_edit reverts edits made through text_editor, batch_edit and extract_lines in this server, by the path they were made at. See what the file holds now with ${
        step("view", { path: quotePath(name) })
      } and change it with str_replace or batch_edit.`
      : guide`Nothing is at that path. undo_edit reverts edits made through text_editor, batch_edit and extract_lines in this server, by the path they were made at: find the file's name with ${
        step("view", { path: quotePath(folder) })
      } and undo that path.`,
  });
}

/** Past this size, a file whose size shows it changed is not read just to show the conflict. */
const CONFLICT_READ_MAX = 1024 * 1024;

/**
 * The file's bytes now (null: nothing there); undefined when it is big and its size alone shows
 * it is not what the edit left (no need to read it whole then).
 */
async function readCurrent(
  services: EditServices,
  location: Location,
  entry: UndoEntry,
): Promise<Uint8Array | null | undefined> {
  const limits = services.reads ?? createReadLimits();
  const info = await location.backend.stat(location.path);
  if (info && info.type !== "file" && info.type !== "dir") {
    assertRegularFile(location.url, info, "undo_edit", location.host.shell);
  }
  if (info?.type !== "file") return null;
  if (entry.after !== null && info.size !== entry.after.size && info.size > CONFLICT_READ_MAX) {
    return undefined;
  }
  // Bounded whatever the stat said (a log grows while read): more than the edit left or the
  // limit allows is a change, shown without its bytes.
  const max = Math.max(limits.maxFileBytes, entry.after?.size ?? 0);
  const bytes = await limits.budget.use(
    info.size,
    () => location.backend.readFile(location.path, { maxBytes: max }),
  );
  return bytes.length > max ? undefined : bytes;
}

/** Undo of a symlink's delete: the same link, holding the same target text, if the name is free. */
async function restoreLink(
  services: EditServices,
  session: Session,
  location: Location,
  entry: UndoEntry,
): Promise<Guide> {
  const backend = location.backend;
  const taken = (await backend.readLink?.(location.path)) != null ||
    (await backend.stat(location.path)) !== null;
  if (taken || !backend.symlink) throw undoConflict(session, location, entry, null);
  await backend.symlink(entry.link!, location.path);
  services.undo.pop(fileKey(location));
  session.shown.forget(fileKey(location));
  return joinGuide(
    `Undid the last edit of ${
      quotePath(displayPathOf(session, location))
    } (${entry.action}): the symlink to ${JSON.stringify(entry.link)} is back; ${
      plural(services.undo.depth(fileKey(location)), "earlier edit")
    } can still be undone.`,
  );
}

/** Most lines and characters of current content an UNDO_CONFLICT shows and its call rewrites. */
const CONFLICT_MAX_LINES = 60;
const CONFLICT_MAX_CHARS = 4000;

/**
 * UNDO_CONFLICT: the file is not what the edit left. Shows the current lines the undo would
 * change (with ids, which count as shown) and, when small enough, the batch_edit that makes the
 * undo's change anyway on the file as it is now; the caller decides what of theirs to keep.
 */
function undoConflict(
  session: Session,
  location: Location,
  entry: UndoEntry,
  current: Uint8Array | null,
): AnchorError {
  const name = displayPathOf(session, location);
  const now = current === null ? null : decodeForDiff(current);
  const before = entry.before === null ? null : decodeForDiff(entry.before);
  const proceed = now && before ? undoAsBatch(now.lines, before.lines) : undefined;
  if (proceed) recordRenderedLines(session, location, proceed.shown);
  return new AnchorError({
    code: "UNDO_CONFLICT",
    message: `${JSON.stringify(name)} changed after the last edit (${entry.action}) by ` +
      "something other than this server; undoing would discard that change, so nothing was " +
      "written.",
    ...(proceed ? { detail: `Current lines the undo would change:\n${proceed.shown}` } : {}),
    hint: proceed
      ? guide`To make the undo's change anyway on the file as it is now (drop the operations that would discard what you want to keep): ${
        step("batch_edit", { path: quotePath(name), operations: proceed.operations })
      }; or ${step("view", { path: quotePath(name) })} and fix it by hand.`
      : guide`${
        step("view", { path: quotePath(name) })
      } and fix it with str_replace or batch_edit instead.`,
    fault: "environment",
  });
}

/**
 * The batch_edit operations that turn `now` into `before`, with the current lines they touch
 * rendered with ids; undefined when that is more than an error should carry.
 */
function undoAsBatch(
  now: readonly string[],
  before: readonly string[],
): { operations: unknown[]; shown: string } | undefined {
  const operations: unknown[] = [];
  const shown: string[] = [];
  let chars = 0;
  let offset = 0; // before's line = now's line + offset, between splices
  for (const s of splicesBetween(now, before)) {
    const content = before.slice(s.start - 1 + offset, s.start - 1 + offset + s.added).join("\n");
    offset += s.added - s.removed;
    chars += content.length;
    if (s.removed === 0) {
      const anchor = s.start === 1 ? 0 : formatLineId(s.start - 1, now[s.start - 2]!);
      if (s.start > 1) shown.push(renderLine(s.start - 1, now[s.start - 2]!));
      operations.push({ op: "insert", anchor, content });
      continue;
    }
    const last = s.start + s.removed - 1;
    for (let n = s.start; n <= last; n++) shown.push(renderLine(n, now[n - 1]!));
    operations.push({
      op: "replace",
      start: formatLineId(s.start, now[s.start - 1]!),
      ...(s.removed > 1 ? { end: formatLineId(last, now[last - 1]!) } : {}),
      content,
    });
  }
  chars += shown.reduce((n, l) => n + l.length, 0);
  if (shown.length > CONFLICT_MAX_LINES || chars > CONFLICT_MAX_CHARS) return undefined;
  return operations.length === 0 ? undefined : { operations, shown: shown.join("\n") };
}

/** The result: what was undone, and the restored lines (a diff, or the head of a restored file). */
function undoneText(
  services: EditServices,
  session: Session,
  location: Location,
  entry: UndoEntry,
  current: Uint8Array | null,
): Guide {
  const key = fileKey(location);
  const shownPath = quotePath(displayPathOf(session, location));
  const head = `Undid the last edit of ${shownPath} (${entry.action})${
    entry.before === null ? ": the file it created was removed" : ""
  }; ${plural(services.undo.depth(key), "earlier edit")} can still be undone.`;
  session.shown.forget(key);
  const before = decodeForDiff(current);
  const after = entry.before === null ? null : decodeForDiff(entry.before);
  if (!before || !after || entry.before === null) return joinGuide(head);
  session.shown.replaceFile(key, []);
  if (current === null) {
    // A deleted file restored whole: counts and a short head, not the file.
    const top = renderFileHead(after.lines);
    recordShown(session, key, top.shown);
    return resultLines([
      `${head} Restored ${plural(after.lines.length, "line")} (${
        plural(entry.before.length, "byte")
      }):`,
      top.text,
      restNote(shownPath, top.rest, after.lines.length),
    ]);
  }
  const diff = renderEditDiff(before.lines, after.lines);
  recordShown(session, key, diff.shown);
  return resultLines([head, diff.text]);
}
