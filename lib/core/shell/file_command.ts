// What a hint asks the shell to do with one file (what it is, its first lines, the lines that
// match a text), as a small intent, and the command line that does it in each shell: bash/sh,
// cmd.exe, PowerShell. Each dialect quotes in its own way. Pure: builds text, runs nothing.

import type { ShellKind } from "../platform/platform.ts";
import { shellQuote } from "./shell_quote.ts";

/** What a suggested shell call does with one file. */
export type FileIntent =
  /** What the file is: its type, size and dates (`ls -l`, `dir`, `Get-Item`). */
  | { kind: "describe" }
  /** Its first `lines` lines. */
  | { kind: "head"; lines: number }
  /**
   * Its lines that hold `text`, numbered, at most `max` (cmd's findstr has no cap: all of them).
   * `match`: "word" for a plain word (a placeholder such as TEXT, which grep gets without a
   * flag), "literal" for any text taken as it is, "regex" for a regular expression (grep -P,
   * .NET in PowerShell; cmd hands it to PowerShell, since findstr's own syntax is far smaller).
   */
  | { kind: "search"; text: string; max: number; match: "word" | "literal" | "regex" }
  /** Delete it (a file the edit tools will not delete: too big to keep for undo, or a FIFO). */
  | { kind: "remove" };

/** How a command line is written: POSIX shells, cmd.exe, or PowerShell (5 and 7). */
export type ShellDialect = "posix" | "cmd" | "powershell";

/** The dialect of a shell kind. */
export function shellDialect(shell: ShellKind): ShellDialect {
  return shell === "cmd"
    ? "cmd"
    : shell === "powershell" || shell === "pwsh"
    ? "powershell"
    : "posix";
}

/**
 * The command line that does `intent` on `file` (a path as that shell's machine writes it).
 *
 * @example
 * ```ts
 * fileCommand({ kind: "head", lines: 200 }, "C:\\logs\\app 1.log", "powershell");
 * // "Get-Content -LiteralPath 'C:\\logs\\app 1.log' -TotalCount 200"
 * ```
 */
export function fileCommand(intent: FileIntent, file: string, dialect: ShellDialect): string {
  switch (dialect) {
    case "posix":
      return posixCommand(intent, shellQuote(file));
    case "cmd":
      return cmdCommand(intent, file);
    case "powershell":
      return powerShellCommand(intent, powerShellQuote(file));
  }
}

function posixCommand(intent: FileIntent, file: string): string {
  switch (intent.kind) {
    case "describe":
      return `ls -l ${file}`;
    case "remove":
      return `rm -- ${file}`;
    case "head":
      return `sed -n '1,${intent.lines}p' ${file}`;
    case "search": {
      const flag = { word: "", literal: "F", regex: "P" }[intent.match];
      return `grep -n${flag} -m ${intent.max} -e ${shellQuote(intent.text)} ${file}`;
    }
  }
}

function powerShellCommand(intent: FileIntent, file: string): string {
  switch (intent.kind) {
    case "describe":
      return `Get-Item -LiteralPath ${file}`;
    case "remove":
      return `Remove-Item -LiteralPath ${file}`;
    case "head":
      return `Get-Content -LiteralPath ${file} -TotalCount ${intent.lines}`;
    case "search": {
      // Select-String ignores case unless told; grep and view's search do not.
      const simple = intent.match === "regex" ? "" : " -SimpleMatch";
      return `Select-String -LiteralPath ${file} -Pattern ${
        powerShellQuote(intent.text)
      }${simple} -CaseSensitive | Select-Object -First ${intent.max}`;
    }
  }
}

/**
 * cmd.exe has no command for a file's first lines and findstr's regular expressions lack most
 * of what a search regex uses (`+`, `|`, groups, `\d`): those two go to PowerShell, which every
 * Windows has. A literal search stays native: findstr, or find when the text holds a `"` or a
 * `\` (findstr reads both as escapes; find takes `""` for a quote and nothing else).
 */
function cmdCommand(intent: FileIntent, file: string): string {
  switch (intent.kind) {
    case "describe":
      return `dir ${cmdQuote(file)}`;
    case "remove":
      return `del ${cmdQuote(file)}`;
    case "head":
      return powerShellFromCmd(powerShellCommand(intent, powerShellQuote(file)));
    case "search":
      if (intent.match === "regex") {
        // The pattern's own quotes become \x22 (the same character to .NET), so no `"` reaches
        // cmd's command line.
        const pattern = intent.text.replaceAll('"', "\\x22");
        return powerShellFromCmd(
          powerShellCommand({ ...intent, text: pattern }, powerShellQuote(file)),
        );
      }
      return /["\\]/.test(intent.text)
        ? `find /n ${cmdQuote(intent.text)} ${cmdQuote(file)}`
        : `findstr /n /l /c:${cmdQuote(intent.text)} ${cmdQuote(file)}`;
  }
}

/** A PowerShell command run from a cmd.exe line (its `"…"` quoted as cmd quotes a word). */
function powerShellFromCmd(command: string): string {
  return `powershell -NoProfile -Command ${cmdQuote(command)}`;
}

// Exported for tests.
/**
 * One word for cmd.exe: in double quotes, which keep `&`, `|`, `<`, `>`, `^` and spaces
 * literal; a `"` inside is doubled (Windows names cannot hold one; find reads `""` as `"`).
 * Quotes do not stop `%NAME%` expansion: when a second `%` follows a first, each `%` is left
 * outside the quotes (`"a"%"b"`), so the name between them holds a quote and names no variable.
 * A single `%` is left alone: on a command line it expands nothing.
 */
export function cmdQuote(text: string): string {
  const doubled = text.replaceAll('"', '""');
  const percents = doubled.split("%").length - 1;
  return `"${percents >= 2 ? doubled.replaceAll("%", '"%"') : doubled}"`;
}

// Exported for tests.
/**
 * One word for PowerShell: single quotes, in which nothing expands; a quote inside is doubled.
 * PowerShell also ends a single-quoted string at the typographic single quotes (‘ ’ ‚ ‛), so
 * those are doubled too.
 */
export function powerShellQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201A\u201B]/g, "$&$&")}'`;
}
