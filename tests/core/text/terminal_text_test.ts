// Cleaning command output for reading: ANSI escapes go, `\r` redraws keep their last frame,
// identical runs collapse with a count, and every line keeps its number and raw size.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  cleanLogForViewing,
  cleanTerminalLine,
  cleanTerminalText,
  describeCleaning,
  renderCleanLines,
  stripAnsi,
} from "../../../lib/core/text/terminal_text.ts";

Deno.test("cleanTerminalLine removes escapes and keeps the last frame of a redraw", () => {
  const table: [string, string][] = [
    ["\x1b[32mPASS\x1b[0m src/a.test.js", "PASS src/a.test.js"],
    ["\x1b[1;31merror\x1b[39;49m: x", "error: x"],
    ["\x1b]0;window title\x07build", "build"],
    ["\x1b]8;;https://x.dev\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["\x1b(Bplain", "plain"],
    ["\x1b[?25l\x1b[2K\x1b[1Gspinner", "spinner"],
    ["Downloading  1%\rDownloading 50%\rDownloading 100%", "Downloading 100%"],
    ["progress 100%\r", "progress 100%"], // CRLF: the \r ends the line
    ["frame one\r\x1b[K\r", "frame one"], // an erased last frame: the last with text
    ["\r\x1b[2K[=====>    ] 50%\r\x1b[2K[==========] 100%", "[==========] 100%"],
    ["no escapes at all", "no escapes at all"],
    [
      "a lone ESC at the end stays (shown as a picture later) \x1b",
      "a lone ESC at the end stays (shown as a picture later) \x1b",
    ],
    ["", ""],
  ];
  for (const [raw, shown] of table) {
    assertEquals(cleanTerminalLine(raw).text, shown, JSON.stringify(raw));
  }
  assertEquals(stripAnsi("\x1b[1m\x1b[2mx").removed, 2);
});

Deno.test("identical runs of 3 or more collapse with a count; line numbers and raw bytes stay", () => {
  const raw = "a\nwait\nwait\nwait\nwait\nb\nb\nc\n";
  const { lines, stats } = cleanTerminalText(raw, 10);
  assertEquals(lines.map((l) => [l.text, l.line, l.count]), [
    ["a", 10, 1],
    ["wait", 11, 4],
    ["b", 15, 1],
    ["b", 16, 1],
    ["c", 17, 1],
  ]);
  assertEquals(stats.collapsed, 3);
  assertEquals(renderCleanLines(lines), "a\nwait\n[previous line repeated 3 more times]\nb\nb\nc");
  // Lines that differ only in escapes or redraws are identical once cleaned.
  const bars = cleanTerminalText("\x1b[33mwait\x1b[0m\nwait\n1%\rwait\n").lines;
  assertEquals(bars.length, 1);
  assertEquals(bars[0]!.count, 3);
});

Deno.test("describeCleaning says what was done, or nothing", () => {
  assertEquals(describeCleaning({ ansi: 0, redraws: 0, collapsed: 0 }), "");
  assertEquals(
    describeCleaning({ ansi: 1, redraws: 1200, collapsed: 2 }),
    "1 ANSI escape sequence removed, 1,200 \\r redraws reduced to the last frame, " +
      "2 repeated lines collapsed",
  );
});

Deno.test("cleanLogForViewing keeps one line per raw line and shows control bytes", () => {
  const viewed = cleanLogForViewing("\x1b[31mred\x1b[0m\na\rb\nnul\x00here\n\nend");
  assertEquals(viewed, "red\nb\nnul␀here\n\nend");
});

Deno.test("property: raw bytes add up, lines are never merged across numbers, no ESC survives a sequence", () => {
  const piece = fc.oneof(
    fc.constantFrom("\x1b[0m", "\x1b[1;32m", "\r", "\n", "ok", "é", "😀", "same\n", " "),
    fc.string({ maxLength: 5 }),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
      const raw = parts.join("");
      const { lines } = cleanTerminalText(raw);
      const total = lines.reduce((n, l) => n + l.rawBytes, 0);
      assertEquals(total, new TextEncoder().encode(raw).length);
      const count = lines.reduce((n, l) => n + l.count, 0);
      const expected = raw === "" ? 0 : raw.split("\n").length - (raw.endsWith("\n") ? 1 : 0);
      assertEquals(count, expected);
      for (let i = 1; i < lines.length; i++) {
        assertEquals(lines[i]!.line, lines[i - 1]!.line + lines[i - 1]!.count);
      }
      for (const l of lines) assert(!l.text.includes("\r"), JSON.stringify(l.text));
    }),
  );
});
