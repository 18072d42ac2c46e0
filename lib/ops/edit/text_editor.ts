// The text_editor commands: create (never overwrites), str_replace (the matching ladder of
// lib/core/edit/str_replace/mod.ts), delete (recoverable) and undo_edit. All I/O goes through the file's
// backend, so the same code edits local and ssh:// files.

import { AnchorError } from "../../core/errors.ts";
import { renderEditDiff, renderFileHead } from "../../core/edit/edit_diff.ts";
import { planStrReplace } from "../../core/edit/str_replace/mod.ts";
import { splitLines, type TextDoc } from "../../core/text/text_file.ts";
import { encodeDoc } from "../../core/text/text_file.ts";
import { guide, step, type ToolArgs } from "../../core/next_step.ts";
import { fileKey, type Session } from "../session.ts";
import { readTextFile } from "../text_io.ts";
import {
  commitEdit,
  decodeForDiff,
  displayPathOf,
  type EditOptions,
  type EditServices,
  recordShown,
  resolvePath,
  resolveWritePath,
  underLock,
  writePathOf,
} from "./commit.ts";
import { editExistingFile } from "./edit_existing_file.ts";
import { fingerprintBytes } from "./undo_store.ts";
import { plural } from "../../core/plural.ts";
import { quotePath } from "../../core/path/path_quote.ts";
import { assertRegularFile, assertWithinLimit, createReadLimits } from "../read_limits.ts";
import { shellQuote } from "../../core/shell/shell_quote.ts";

export type TextEditorCommand = "create" | "str_replace" | "delete" | "undo_edit";

export interface TextEditorArgs {
  command: TextEditorCommand;
  path: string;
  file_text?: string;
  old_text?: string;
  new_text?: string;
  replace_all?: boolean;
}

export function runTextEditor(
  services: EditServices,
  session: Session,
  args: TextEditorArgs,
  options: EditOptions = {},
): Promise<string> {
  switch (args.command) {
    case "create":
      return createFile(services, session, args.path, args.file_text);
    case "str_replace":
      return strReplace(services, session, args, options);
    case "delete":
      return deleteFile(services, session, args.path);
    case "undo_edit":
      return undoEdit(services, session, args.path);
    default:
      throw new AnchorError({
        code: "INVALID_ARGUMENT",
        message: `Unknown text_editor command ${JSON.stringify(args.command)}.`,
        hint: 'command is one of "create", "str_replace", "delete", "undo_edit".',
      });
  }
}

function missing(argument: string, command: string, example: ToolArgs["text_editor"]) {
  return new AnchorError({
    code: "MISSING_ARGUMENT",
    message: `text_editor ${command} needs ${argument}.`,
    hint: guide`${step("text_editor", example)}`,
  });
}

export async function createFile(
  services: EditServices,
  session: Session,
  rawPath: string,
  fileText: string | undefined,
): Promise<string> {
  if (fileText === undefined) {
    throw missing("file_text", "create", {
      command: "create",
      path: rawPath,
      file_text: "line one\n",
    });
  }
  if (/[/\\]\s*$/.test(rawPath)) {
    // Without this, "newdir/" resolves to "newdir" and becomes a file of that name.
    // A loop, not /[/\\]+$/: that regex retries every start in a run of slashes (quadratic).
    const trimmed = rawPath.trim();
    let end = trimmed.length;
    while (end > 0 && (trimmed[end - 1] === "/" || trimmed[end - 1] === "\\")) end--;
    const dir = trimmed.slice(0, end);
    throw new AnchorError({
      code: "INVALID_ARGUMENT",
      message: `path ${
        JSON.stringify(rawPath)
      } ends with "/": create makes a file and needs its name; nothing was written.`,
      hint: guide`Folders are created automatically for a file inside them: ${
        step("text_editor", {
          command: "create",
          path: `${dir === "" ? "" : `${dir}/`}new_file.txt`,
          file_text: "line one\n",
        })
      }`,
    });
  }
  const location = await resolveWritePath(services, session, rawPath);
  return await underLock(services, location, async () => {
    const info = await location.backend.stat(location.path);
    if (info) {
      throw new AnchorError({
        code: info.type === "dir" ? "IS_A_DIRECTORY" : "FILE_EXISTS",
        message: info.type === "dir"
          ? `${
            JSON.stringify(displayPathOf(session, location))
          } is a directory; create makes files.`
          : `${JSON.stringify(displayPathOf(session, location))} already exists (${
            plural(info.size, "byte")
          }); create never overwrites a file, nothing was ` +
            "written.",
        hint: info.type === "dir"
          ? `Name a file inside it, e.g. ${
            JSON.stringify(`${displayPathOf(session, location)}/new_file.txt`)
          }.`
          : guide`To change it, ${
            step("view", { path: quotePath(displayPathOf(session, location)) })
          } first, then use str_replace or batch_edit with the ids it shows.`,
      });
    }
    const { lines, eols } = splitLines(fileText);
    const doc: TextDoc = { encoding: "utf-8", bom: false, lines, eols };
    const bytes = encodeDoc(doc);
    await location.backend.mkdirp(location.backend.paths.parent(writePathOf(location)));
    await location.backend.writeFileAtomic(writePathOf(location), bytes, { expect: null });
    services.undo.push(fileKey(location), {
      action: "create",
      before: null,
      mode: null,
      after: fingerprintBytes(bytes),
      url: location.url,
    });
    // Counts and a short head: the agent wrote the content; the ids of the first lines are
    // enough to edit on, the rest is one view away.
    const head = renderFileHead(lines);
    session.shown.replaceFile(fileKey(location), []);
    recordShown(session, fileKey(location), head.shown);
    const shownPath = quotePath(displayPathOf(session, location));
    return [
      `Created ${shownPath} (${plural(lines.length, "line")}, ${plural(bytes.length, "byte")}).`,
      head.text,
      restNote(session, shownPath, head.rest, lines.length),
    ].filter((l) => l !== "").join("\n");
  });
}

async function strReplace(
  services: EditServices,
  session: Session,
  args: TextEditorArgs,
  options: EditOptions,
): Promise<string> {
  if (args.old_text === undefined) {
    throw missing("old_text (the exact text to replace)", "str_replace", {
      command: "str_replace",
      path: args.path,
      old_text: "old line",
      new_text: "new line",
    });
  }
  if (args.new_text === undefined) {
    throw missing('new_text (use "" to delete old_text)', "str_replace", {
      command: "str_replace",
      path: args.path,
      old_text: args.old_text.slice(0, 40),
      new_text: "...",
    });
  }
  return await editExistingFile(services, session, args.path, async (file, location) => {
    const result = planStrReplace(file.doc, {
      oldText: args.old_text!,
      newText: args.new_text!,
      replaceAll: args.replace_all === true,
    }, displayPathOf(session, location));
    const how = result.tier === "exact"
      ? `${result.matches.length === 1 ? "exact match" : `${result.matches.length} exact matches`}`
      : result.tier === "escaped"
      ? "matched after reading escape sequences"
      : result.tier === "escaped_fuzzy"
      ? "whitespace-normalized match after reading escape sequences"
      : "whitespace-normalized match";
    return await commitEdit(services, {
      file,
      doc: result.doc,
      action: `str_replace, ${how}`,
      notes: result.notes,
      session,
      options,
    });
  });
}

async function deleteFile(
  services: EditServices,
  session: Session,
  rawPath: string,
): Promise<string> {
  const location = await resolvePath(services, session, rawPath);
  const limits = services.reads ?? createReadLimits();
  return await underLock(services, location, async () => {
    // readTextFile gives the missing-path and directory errors; binary files may be deleted too.
    const info = await location.backend.stat(location.path);
    if (!info || info.type === "dir") await readTextFile(services.locations, location);
    const name = displayPathOf(session, location);
    // The bytes are kept for undo: a FIFO would block that read and a device never end, so only
    // regular files are deleted here, and only below the size limit (the shell deletes the rest).
    const rm = step("shell", { command: `rm -- ${shellQuote(name)}` });
    try {
      assertRegularFile(location.url, info!, "delete");
      assertWithinLimit(
        location.url,
        info!.size,
        limits,
        "delete (which keeps the bytes for undo_edit)",
        guide`Delete it with the shell (no undo): ${rm}.`,
      );
    } catch (e) {
      if (e instanceof AnchorError && e.code === "NOT_A_REGULAR_FILE") {
        throw new AnchorError({
          code: e.code,
          message: e.message,
          hint: guide`Remove it with the shell: ${rm}.`,
        });
      }
      throw e;
    }
    const bytes = await limits.budget.use(
      info!.size,
      () => location.backend.readFile(location.path),
    );
    await location.backend.removeFile(location.path);
    services.undo.push(fileKey(location), {
      action: "delete",
      before: bytes,
      mode: info?.mode ?? null,
      after: null,
      url: location.url,
    });
    session.shown.forget(fileKey(location));
    return `Deleted ${quotePath(displayPathOf(session, location))} (${
      plural(bytes.length, "byte")
    }). Undo with ${
      session.steps(
        step("text_editor", {
          command: "undo_edit",
          path: quotePath(displayPathOf(session, location)),
        }),
      )
    }.`;
  });
}

async function undoEdit(
  services: EditServices,
  session: Session,
  rawPath: string,
): Promise<string> {
  const location = await resolveWritePath(services, session, rawPath);
  const key = fileKey(location);
  const limits = services.reads ?? createReadLimits();
  return await underLock(services, location, async () => {
    const entry = services.undo.peek(key);
    if (!entry) {
      throw new AnchorError({
        code: "NOTHING_TO_UNDO",
        message: `No edit of ${
          JSON.stringify(displayPathOf(session, location))
        } to undo: this server has not changed it (or every edit was undone already).`,
        hint: "undo_edit reverts edits made through text_editor, batch_edit and extract_lines " +
          "in this server; check the path.",
      });
    }
    const info = await location.backend.stat(location.path);
    if (info && info.type !== "file" && info.type !== "dir") {
      assertRegularFile(location.url, info, "undo_edit");
    }
    // A size other than what the edit left means the file changed: no need to read it whole.
    const sizeChanged = info?.type === "file" && entry.after !== null &&
      info.size !== entry.after.size;
    const current = info?.type === "file" && !sizeChanged
      ? await limits.budget.use(info.size, () => location.backend.readFile(location.path))
      : null;
    const now = current === null ? null : fingerprintBytes(current);
    const matches = sizeChanged
      ? false
      : entry.after === null
      ? now === null
      : now !== null && now.size === entry.after.size &&
        now.fingerprint === entry.after.fingerprint;
    if (!matches) {
      throw new AnchorError({
        code: "UNDO_CONFLICT",
        message:
          `${
            JSON.stringify(displayPathOf(session, location))
          } changed after the last edit (${entry.action}) ` +
          `by something other than this server; undoing would discard that change, so nothing ` +
          "was written.",
        hint: guide`${
          step("view", { path: quotePath(displayPathOf(session, location)) })
        } and fix it with str_replace or batch_edit instead.`,
        fault: "environment",
      });
    }
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
    const left = services.undo.depth(key);
    const head = `Undid the last edit of ${
      quotePath(displayPathOf(session, location))
    } (${entry.action})${entry.before === null ? ": the file it created was removed" : ""}; ${
      plural(left, "earlier edit")
    } can still be undone.`;
    session.shown.forget(key);
    const before = decodeForDiff(current);
    const after = entry.before === null ? null : decodeForDiff(entry.before);
    if (!before || !after || entry.before === null) return head;
    session.shown.replaceFile(key, []);
    if (current === null) {
      // A deleted file restored whole: counts and a short head, not the file.
      const top = renderFileHead(after.lines);
      recordShown(session, key, top.shown);
      const shownPath = quotePath(displayPathOf(session, location));
      return [
        `${head} Restored ${plural(after.lines.length, "line")} (${
          plural(entry.before.length, "byte")
        }):`,
        top.text,
        restNote(session, shownPath, top.rest, after.lines.length),
      ].filter((l) => l !== "").join("\n");
    }
    const diff = renderEditDiff(before.lines, after.lines);
    recordShown(session, key, diff.shown);
    return [head, diff.text].filter((l) => l !== "").join("\n");
  });
}

/** After a file head: how many lines are not shown and the view that shows them. */
function restNote(session: Session, shownPath: string, rest: number, total: number): string {
  if (rest <= 0) return "";
  return `[… ${plural(rest, "more line")} not shown: ${
    session.steps(step("view", { path: shownPath, start: total - rest + 1 }))
  }]`;
}
