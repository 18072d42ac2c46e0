// The text_editor commands: create (never overwrites), str_replace (the matching ladder of
// lib/core/edit/str_replace/mod.ts), delete (recoverable) and undo_edit. All I/O goes through the file's
// backend, so the same code edits local and ssh:// files.

import { AnchorError } from "../../core/errors.ts";
import { renderFileHead } from "../../core/edit/edit_diff.ts";
import { planStrReplace } from "../../core/edit/str_replace/mod.ts";
import { splitLines, type TextDoc } from "../../core/text/text_file.ts";
import { encodeDoc } from "../../core/text/text_file.ts";
import { type Guide, guide, step, type ToolArgs } from "../../core/next_step.ts";
import { fileKey, type Session } from "../session.ts";
import type { Location } from "../location.ts";
import type { FileInfo } from "../ports/file_backend.ts";
import { readTextFile } from "../text_io.ts";
import {
  commitEdit,
  displayPathOf,
  type EditOptions,
  type EditServices,
  recordShown,
  resolvePath,
  resolveWritePath,
  restNote,
  resultLines,
  underLock,
  writePathOf,
} from "./commit.ts";
import { editExistingFile } from "./edit_existing_file.ts";
import { undoEdit } from "./undo_edit.ts";
import { refuseGoneWorkdir } from "../workdir.ts";
import { fingerprintBytes } from "./undo_store.ts";
import { plural } from "../../core/plural.ts";
import { quotePath } from "../../core/path/path_quote.ts";
import { assertWithinLimit, createReadLimits, readWithinLimit } from "../read_limits.ts";
import { assertRegularFile, describeSpecial } from "../../core/read_refusals.ts";
import { shellStepForFile } from "../../core/shell/file_shell_step.ts";
import type { ShellKind } from "../../core/platform/platform.ts";

type TextEditorCommand = "create" | "str_replace" | "delete" | "undo_edit";

interface TextEditorArgs {
  command: TextEditorCommand;
  path: string;
  file_text?: string;
  old_text?: string;
  new_text?: string;
  replace_all?: boolean;
}

/** Runs one text_editor command; the result keeps the calls it suggests as steps. */
export function runTextEditor(
  services: EditServices,
  session: Session,
  args: TextEditorArgs,
  options: EditOptions = {},
): Promise<Guide> {
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

async function createFile(
  services: EditServices,
  session: Session,
  rawPath: string,
  fileText: string | undefined,
): Promise<Guide> {
  if (fileText === undefined) {
    throw missing("file_text", "create", {
      command: "create",
      path: rawPath,
      file_text: "line one\n",
    });
  }
  // Without this, "newdir/" resolves to "newdir" and becomes a file of that name.
  if (/[/\\]\s*$/.test(rawPath)) throw endsWithSlash(rawPath);
  const location = await resolveWritePath(services, session, rawPath);
  return await underLock(services, location, async () => {
    const info = await location.backend.stat(location.path);
    if (info) throw alreadyThere(session, location, info, location.host.shell);
    await refuseGoneWorkdir(services.locations, session, location, rawPath);
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
    return resultLines([
      `Created ${shownPath} (${plural(lines.length, "line")}, ${plural(bytes.length, "byte")}).`,
      head.text,
      restNote(shownPath, head.rest, lines.length),
    ]);
  });
}

/** create of "dir/": names a folder, not a file; the hint names a file inside it. */
function endsWithSlash(rawPath: string): AnchorError {
  // A loop, not /[/\\]+$/: that regex retries every start in a run of slashes (quadratic).
  const trimmed = rawPath.trim();
  let end = trimmed.length;
  while (end > 0 && (trimmed[end - 1] === "/" || trimmed[end - 1] === "\\")) end--;
  const dir = trimmed.slice(0, end);
  return new AnchorError({
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

/** create where something exists: create never overwrites (a folder, or a file to edit). */
function alreadyThere(
  session: Session,
  location: Location,
  info: FileInfo,
  shell: ShellKind,
): AnchorError {
  const name = displayPathOf(session, location);
  if (info.type === "dir") {
    return new AnchorError({
      code: "IS_A_DIRECTORY",
      message: `${JSON.stringify(name)} is a directory; create makes files.`,
      hint: `Name a file inside it, e.g. ${JSON.stringify(`${name}/new_file.txt`)}.`,
    });
  }
  if (info.type !== "file") {
    return new AnchorError({
      code: "NOT_A_REGULAR_FILE",
      message: `${JSON.stringify(name)} already exists as ${
        info.special === undefined ? "something other than a regular file" : describeSpecial(info)
      }; create never replaces anything, so nothing was written.`,
      hint: guide`If a file belongs there, remove it with the shell first (${
        shellStepForFile(name, { kind: "remove" }, shell)
      }), then create it; or pick another name.`,
    });
  }
  return new AnchorError({
    code: "FILE_EXISTS",
    message: `${JSON.stringify(name)} already exists (${
      plural(info.size, "byte")
    }); create never overwrites a file, nothing was written.`,
    hint: guide`To change it, ${
      step("view", { path: quotePath(name) })
    } first, then use str_replace or batch_edit with the ids it shows.`,
  });
}

async function strReplace(
  services: EditServices,
  session: Session,
  args: TextEditorArgs,
  options: EditOptions,
): Promise<Guide> {
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
): Promise<Guide> {
  const location = await resolvePath(services, session, rawPath);
  await services.execFiles?.check(location, "delete");
  const limits = services.reads ?? createReadLimits();
  return await underLock(services, location, async () => {
    // A symlink is removed itself, and undo puts the same link back: its target is never read.
    const link = await location.backend.readLink?.(location.path) ?? null;
    if (link !== null) return await deleteLink(services, session, location, link);
    // readTextFile gives the missing-path and directory errors; binary files may be deleted too.
    const info = await location.backend.stat(location.path);
    if (!info || info.type === "dir") await readTextFile(services.locations, location);
    const name = displayPathOf(session, location);
    // The bytes are kept for undo: a FIFO would block that read and a device never end, so only
    // regular files are deleted here, and only below the size limit (the shell deletes the rest).
    const rm = shellStepForFile(name, { kind: "remove" }, location.host.shell);
    try {
      assertRegularFile(location.url, info!, "delete", location.host.shell);
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
      () =>
        readWithinLimit(
          location.backend,
          location.path,
          location.url,
          info!.size,
          limits,
          "delete (which keeps the bytes for undo_edit)",
          guide`Delete it with the shell (no undo): ${rm}.`,
        ),
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
    const shownPath = quotePath(displayPathOf(session, location));
    return guide`Deleted ${shownPath} (${plural(bytes.length, "byte")}). Undo with ${
      step("text_editor", { command: "undo_edit", path: shownPath })
    }.`;
  });
}

/** delete of a symlink: the link itself goes, and the undo record keeps what it held. */
async function deleteLink(
  services: EditServices,
  session: Session,
  location: Location,
  link: string,
): Promise<Guide> {
  await location.backend.removeFile(location.path);
  services.undo.push(fileKey(location), {
    action: "delete",
    before: null,
    mode: null,
    after: null,
    url: location.url,
    link,
  });
  session.shown.forget(fileKey(location));
  const shownPath = quotePath(displayPathOf(session, location));
  return guide`Deleted ${shownPath} (a symlink to ${
    JSON.stringify(link)
  }; the file it points to is untouched). Undo with ${
    step("text_editor", { command: "undo_edit", path: shownPath })
  }.`;
}
