import { assertEquals } from "../_assert.ts";
import { ShownLines } from "../../lib/core/shown_lines.ts";
import { hashLine, renderLine } from "../../lib/core/line_id.ts";

Deno.test("recordRendered takes report rows and the 'is now at' list, checking each hash", () => {
  const shown = new ShownLines();
  const tricky = "a, 9:00|b"; // content that looks like another list entry
  const report = [
    "start 3:00: line 3 no longer has hash 00.",
    renderLine(2, "two"),
    `Content with hash 5e is now at: ${renderLine(40, "x")}, ${renderLine(7, tricky)}, ${
      renderLine(90, "y")
    } (nearest first; an 8-bit hash can collide, check the content).`,
    "12:ff|not the content of that hash",
  ].join("\n");
  shown.recordRendered("f", report);
  assertEquals(shown.shownHash("f", 2), hashLine("two"));
  assertEquals(shown.shownHash("f", 40), hashLine("x"));
  assertEquals(shown.shownHash("f", 7), hashLine(tricky));
  assertEquals(shown.shownHash("f", 90), hashLine("y"));
  assertEquals(shown.shownHash("f", 9), undefined);
  assertEquals(shown.shownHash("f", 12), undefined);
});
