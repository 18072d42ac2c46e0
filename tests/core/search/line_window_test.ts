// Search output shows a long line around its match, saying what was cut on each side.

import { assert, assertEquals } from "../../_assert.ts";
import { windowAround } from "../../../lib/core/search/line_window.ts";

const line = "a".repeat(5000) + "NEEDLE" + "b".repeat(4994); // 10,000 characters

Deno.test("windowAround() centres a match past the head and counts the cut on each side", () => {
  const shown = windowAround(line, 5000, 5006, 400);
  assert(shown.startsWith("…" + "a".repeat(197) + "NEEDLE" + "b".repeat(197) + "…"), shown);
  assertEquals(
    shown.slice(shown.indexOf(" [")),
    " [line cut: 10,000 characters; shown 4,804-5,203: 4,803 cut before, 4,797 after]",
  );
});

Deno.test("windowAround() keeps the head when the match ends within it", () => {
  const head = "x".repeat(100) + "NEEDLE" + "y".repeat(900);
  assertEquals(
    windowAround(head, 100, 106, 400),
    "x".repeat(100) + "NEEDLE" + "y".repeat(294) +
      "… [line cut: 1,006 characters; shown 1-400: 606 cut after]",
  );
  assertEquals(windowAround("short NEEDLE", 6, 12, 400), "short NEEDLE");
});

Deno.test("windowAround() at the end of a line, for a long match, and across a surrogate pair", () => {
  const tail = "z".repeat(1000) + "NEEDLE";
  assertEquals(
    windowAround(tail, 1000, 1006, 400),
    "…" + "z".repeat(394) + "NEEDLE [line cut: 1,006 characters; shown 607-1,006: 606 cut before]",
  );
  // A match longer than the window shows from just before its start.
  const long = windowAround(line, 4000, 9000, 400);
  assert(long.includes("shown 3,961-4,360: 3,960 cut before, 5,640 after"), long);
  // Emoji are two UTF-16 units: the window never starts or ends inside one.
  const emoji = "😀".repeat(600) + "NEEDLE" + "😀".repeat(600);
  const shown = windowAround(emoji, 1200, 1206, 400);
  const body = shown.slice(1, shown.indexOf("… ["));
  assert(!/^[\uDC00-\uDFFF]/.test(body) && !/[\uD800-\uDBFF]$/.test(body), shown);
  assert(body.includes("NEEDLE"), shown);
});
