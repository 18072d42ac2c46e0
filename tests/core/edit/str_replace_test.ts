// The str_replace ladder (lib/core/edit/str_replace/, pure): exact, escaped, indentation and fuzzy
// matches, line endings, BOMs and final newlines kept, refusals with the nearest text; table and
// property tests.

import fc from "fast-check";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { planStrReplace, unescapeLiteral } from "../../../lib/core/edit/str_replace/mod.ts";
import { decodeText, encodeDoc, type TextDoc } from "../../../lib/core/text/text_file.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function docOf(text: string | Uint8Array): TextDoc {
  const d = decodeText(typeof text === "string" ? enc.encode(text) : text);
  if (d.kind !== "text") throw new Error("binary");
  return d.doc;
}

function replace(text: string, oldText: string, newText: string, replaceAll = false) {
  const r = planStrReplace(docOf(text), { oldText, newText, replaceAll }, "f.ts");
  return { ...r, text: dec.decode(encodeDoc(r.doc)) };
}

function failure(text: string, oldText: string, newText: string, replaceAll = false): AnchorError {
  const e = assertThrows(() =>
    planStrReplace(docOf(text), { oldText, newText, replaceAll }, "f.ts")
  );
  assert(e instanceof AnchorError);
  return e;
}

const full = (e: AnchorError) => `${e.message}\n${e.detail ?? ""}\n${e.hint ?? ""}`;

Deno.test("str_replace applies a unique exact match inside a line", () => {
  const r = replace("a = 1;\nb = 2;\n", "b = 2", "b = 3");
  assertEquals(r.text, "a = 1;\nb = 3;\n");
  assertEquals(r.tier, "exact");
  assertEquals(r.matches, [{ startLine: 2, endLine: 2 }]);
});

Deno.test("str_replace across lines can add and remove lines", () => {
  assertEquals(replace("a\nb\nc\n", "a\nb\n", "x\n").text, "x\nc\n");
  assertEquals(replace("a\nb\nc\n", "b", "b1\nb2").text, "a\nb1\nb2\nc\n");
  assertEquals(replace("a\nb\nc\n", "b\n", "").text, "a\nc\n");
  // A match that ends in a newline replaced without one joins with the next line, like a string.
  assertEquals(replace("a\nb\nc\n", "a\n", "z").text, "zb\nc\n");
});

Deno.test("str_replace on a CRLF file keeps CRLF on every line, new ones included", () => {
  const r = replace("one\r\ntwo\r\nthree\r\n", "two", "2a\n2b");
  assertEquals(r.text, "one\r\n2a\r\n2b\r\nthree\r\n");
  // old_text sent with CRLF matches too: matching is in LF space.
  assertEquals(replace("one\r\ntwo\r\n", "one\r\ntwo", "x").text, "x\r\n");
});

Deno.test("str_replace keeps mixed line endings line by line", () => {
  const r = replace("a\r\nb\nc\r\nd\n", "c", "C");
  assertEquals(r.text, "a\r\nb\nC\r\nd\n");
  const r2 = replace("a\r\nb\nc\r\nd\n", "b\nc", "B\nC");
  assertEquals(r2.text, "a\r\nB\nC\r\nd\n");
  // New lines follow their neighbourhood: an LF line grown into two stays LF.
  const r3 = replace("a\r\nb\nc\r\nd\r\n", "b", "B1\nB2");
  assertEquals(r3.text, "a\r\nB1\nB2\nc\r\nd\r\n");
});

Deno.test("str_replace keeps a BOM and the absence of a final newline", () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("x = 1\ny = 2")]);
  const r = planStrReplace(docOf(bytes), { oldText: "y = 2", newText: "y = 3\nz = 4" }, "f");
  const out = encodeDoc(r.doc);
  assertEquals([...out.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assertEquals(dec.decode(out.subarray(3)), "x = 1\ny = 3\nz = 4");
  assertEquals(replace("a\nb\n", "b", "c").text, "a\nc\n");
});

Deno.test("str_replace writes UTF-16 LE and Latin-1 files back in their encoding", () => {
  const body = "héllo\r\nwörld\r\n";
  const le = new Uint8Array(2 + body.length * 2);
  le.set([0xff, 0xfe]);
  for (let i = 0; i < body.length; i++) le[2 + 2 * i] = body.charCodeAt(i);
  const r = planStrReplace(docOf(le), { oldText: "wörld", newText: "wörld!" }, "f");
  const out = encodeDoc(r.doc);
  assertEquals(r.doc.encoding, "utf-16le");
  assertEquals(new TextDecoder("utf-16le").decode(out.subarray(2)), "héllo\r\nwörld!\r\n");
  const latin = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
  const r2 = planStrReplace(docOf(latin), { oldText: "café", newText: "cafés" }, "f");
  assertEquals([...encodeDoc(r2.doc)], [0x63, 0x61, 0x66, 0xe9, 0x73, 0x0a]);
});

Deno.test("several exact matches without replace_all list every match by id and the ways out", () => {
  const e = failure("x();\ny();\nx();\n", "x();", "z();");
  assertEquals(e.code, "AMBIGUOUS_MATCH");
  assertStringIncludes(e.message, "matches 2 places");
  assertStringIncludes(e.detail!, "1:");
  assertStringIncludes(e.detail!, "3:");
  assertStringIncludes(e.hint!, "replace_all");
  assertStringIncludes(e.hint!, "batch_edit");
  assertStringIncludes(e.hint!, "surrounding lines");
});

Deno.test("replace_all replaces every exact match, two on one line included", () => {
  const r = replace("a a\nb\na\n", "a", "c", true);
  assertEquals(r.text, "c c\nb\nc\n");
  assertEquals(r.matches.length, 3);
});

Deno.test("escaped-literal recovery reads a double-escaped old_text and new_text", () => {
  const file = "function f() {\n  return 1;\n}\n";
  const r = replace(file, "function f() {\\n  return 1;", "function f() {\\n  return 2;");
  assertEquals(r.tier, "escaped");
  assertEquals(r.text, "function f() {\n  return 2;\n}\n");
  assertStringIncludes(r.notes.join(" "), "escape");
});

Deno.test("escaped recovery never unescapes a legitimate \\n inside a string literal (mixed case)", () => {
  const file = 'log("a\\n");\nnext();\n'; // the file holds a real backslash-n in a string
  // Double-escaped old_text whose string literal kept its single escape.
  const r = replace(file, 'log("a\\n");\\nnext();', 'log("b\\n");\\nnext();');
  assertEquals(r.tier, "escaped");
  assertEquals(r.text, 'log("b\\n");\nnext();\n');
  // Fully double-escaped (quotes and backslashes escaped again) also lands right.
  const r2 = replace(file, 'log(\\"a\\\\n\\");\\nnext();', 'log(\\"c\\\\n\\");\\nnext();');
  assertEquals(r2.text, 'log("c\\n");\nnext();\n');
  // new_text with real newlines is used as written: its "\n" literal stays a literal.
  const r3 = replace(file, 'log("a\\n");\\nnext();', 'log("d\\n");\nnext();');
  assertEquals(r3.text, 'log("d\\n");\nnext();\n');
  // An exact match with a literal \n in a string never goes through recovery at all.
  const r4 = replace(file, 'log("a\\n");', 'log("e\\n");');
  assertEquals(r4.tier, "exact");
  assertEquals(r4.text, 'log("e\\n");\nnext();\n');
});

Deno.test("escaped and whitespace-normalized recovery combine: a double-escaped, re-indented old_text matches", () => {
  const file = "function a() {\n  return 1;\n}\nfunction b() {\n  return 3;\n}\n";
  const r = replace(file, "function b() {\\n    return 3;", "function b() {\\n    return 4;");
  assertEquals(r.tier, "escaped_fuzzy");
  assertEquals(r.text, "function a() {\n  return 1;\n}\nfunction b() {\n  return 4;\n}\n");
  assertEquals(r.matches, [{ startLine: 4, endLine: 5 }]);
  const notes = r.notes.join(" ");
  assertStringIncludes(notes, "read as escapes it matched once after also normalizing whitespace");
  assertStringIncludes(notes, "It matched lines 4-5 only after normalizing whitespace");
  assertStringIncludes(notes, "new_text was escaped the same way");
});

Deno.test("the combined rung applies only a unique match, and a miss says what was tried", () => {
  const twice = "if (a) {\n  go();\n}\nif (a) {\n  go();\n}\n";
  const e = failure(twice, "if (a) {\\n    go();", "if (b) {\\n    go();");
  assertEquals(e.code, "AMBIGUOUS_MATCH");
  assertStringIncludes(e.message, "after reading its \\n escapes and normalizing whitespace");
  const miss = failure("function b() {\n  return 3;\n}\n", "function c() {\\n  return 9;", "x");
  assertEquals(miss.code, "NO_MATCH");
  assertStringIncludes(miss.message, "both together");
  assertStringIncludes(
    miss.message,
    "it was also tried with them read as line breaks, tabs and quotes, without a match.",
  );
  assert(!miss.message.includes("even when read as escapes"));
});

Deno.test("unescapeLiteral: code mode keeps escapes inside quotes, full mode reads all", () => {
  assertEquals(unescapeLiteral('a\\nb("x\\n")', "code"), 'a\nb("x\\n")');
  assertEquals(unescapeLiteral('a\\nb("x\\n")', "full"), 'a\nb("x\n")');
  assertEquals(unescapeLiteral('say(\\"hi\\")', "code"), 'say("hi")');
});

Deno.test("whitespace-normalized match re-indents new_text from spaces to tabs", () => {
  const file = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
  const r = replace(
    file,
    "    if ok {\n        run()\n    }",
    "    if ok {\n        run()\n        done()\n    }",
  );
  assertEquals(r.tier, "fuzzy");
  assertEquals(r.text, "func main() {\n\tif ok {\n\t\trun()\n\t\tdone()\n\t}\n}\n");
  assertStringIncludes(r.notes.join(" "), "re-indented to the matched lines' indentation");
});

Deno.test("whitespace-normalized match adjusts a drifted indentation depth", () => {
  const file = "class A {\n    m() {\n        a();\n        b();\n    }\n}\n";
  const r = replace(file, "a();\n  b();", "a();\n  c();\n  b();");
  // exact fails ("a();\n  b();" is not in the file), fuzzy matches lines 3-4
  assertEquals(r.tier, "fuzzy");
  assertEquals(
    r.text,
    "class A {\n    m() {\n        a();\n        c();\n        b();\n    }\n}\n",
  );
});

Deno.test("a fuzzy match that is not unique is refused with every candidate", () => {
  const e = failure("  x = 1\ny\n    x  =  1\n", "x = 1 \nq", "x = 2");
  assertEquals(e.code, "NO_MATCH");
  const e2 = failure("  a\n  b\nz\n    a\n    b\n", " a\n b", "c");
  assertEquals(e2.code, "AMBIGUOUS_MATCH");
  assertStringIncludes(e2.message, "after normalizing whitespace");
});

Deno.test("no match shows the closest region with ids and what differs, and writes nothing", () => {
  const file =
    "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n";
  const e = failure(file, "function sub(a, b) {\n  return a - c;\n}", "x");
  assertEquals(e.code, "NO_MATCH");
  assertStringIncludes(e.message, "nothing was written");
  assertStringIncludes(e.detail!, "5:");
  assertStringIncludes(e.detail!, "|function sub(a, b) {");
  assertStringIncludes(e.detail!, "old_text line 2 vs line 6: differs from column");
  assertStringIncludes(e.hint!, "batch_edit");
  assertStringIncludes(full(e), '"start":"5:');
});

Deno.test("identical old and new text, or an empty old_text, are refused loudly", () => {
  assertEquals(failure("a\n", "a", "a").code, "NO_CHANGE");
  assertEquals(failure("a\n", "", "b").code, "INVALID_ARGUMENT");
});

Deno.test("property: a unique exact old_text is replaced exactly like a string replace, endings kept", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("a", "b", "}", "", "x y", "\tz"), { minLength: 1, maxLength: 12 }),
      fc.constantFrom("\n", "\r\n"),
      fc.boolean(),
      fc.nat(),
      fc.nat({ max: 3 }),
      fc.string({ maxLength: 6 }).map((s) => s.replace(/\r/g, "")),
      (lines, eol, finalNewline, startSeed, len, replacement) => {
        const lf = lines.join("\n") + (finalNewline ? "\n" : "");
        const from = startSeed % lf.length || 0;
        const oldText = lf.slice(from, from + len + 1);
        if (oldText === "" || lf.indexOf(oldText) !== lf.lastIndexOf(oldText)) return;
        if (oldText === replacement) return;
        const text = lf.replaceAll("\n", eol);
        let r;
        try {
          r = replace(text, oldText, replacement);
        } catch (e) {
          // Only a replacement that changes nothing may be refused.
          assert(e instanceof AnchorError && e.code === "NO_CHANGE", String(e));
          return;
        }
        assertEquals(r.tier, "exact");
        // The file keeps its final-newline presence; otherwise it is a plain string replace.
        const hadFinal = lf.endsWith("\n");
        let expected = lf.replace(oldText, () => replacement);
        if (hadFinal && expected !== "" && !expected.endsWith("\n")) expected += "\n";
        if (!hadFinal && expected.endsWith("\n")) expected = expected.slice(0, -1);
        assertEquals(r.text.replaceAll(eol, "\n"), expected);
        // Every line ending of the result is the file's own.
        if (eol === "\r\n") assertEquals(r.text.replaceAll("\r\n", "").includes("\n"), false);
      },
    ),
    { numRuns: 800 },
  );
});

Deno.test("an exact match with a double-escaped new_text is written as is, with a note saying so", () => {
  const r = replace("a();\nb();\n", "a();", "a();\\nc();");
  assertEquals(r.text, "a();\\nc();\nb();\n");
  assertStringIncludes(r.notes.join(" "), "literal \\n outside any string literal");
  // A \n inside a string literal is the program's own: no note.
  assertEquals(replace("a();\n", "a();", 'log("x\\n");').notes, []);
});

Deno.test("a whitespace-ambiguous old_text does not suggest replace_all, which would fail the same way", () => {
  const file = "a() {\n  x = 1;\n}\nb() {\n    x = 1;\n}\n";
  const e = failure(file, "x = 1;  ", "x = 2;");
  assertEquals(e.code, "AMBIGUOUS_MATCH");
  assertStringIncludes(e.hint!, "replace_all does not help: it replaces exact matches only");
  const again = failure(file, "x = 1;  ", "x = 2;", true);
  assertEquals(again.code, "AMBIGUOUS_MATCH");
  assertStringIncludes(again.hint!, "batch_edit");
});

Deno.test("old_text pasted with its N:hh| view prefixes is recognised, and the note says so", () => {
  const file = "const a = 1;\nconst b = 2;\nconst c = 3;\n";
  const r = replace(file, "2:5d|const b = 2;\n3:0e|const c = 3;", "const b = 20;\nconst c = 30;");
  assertEquals(r.text, "const a = 1;\nconst b = 20;\nconst c = 30;\n");
  assertStringIncludes(r.notes.join(" "), 'old_text carried the "N:hh|" prefixes');
});

Deno.test("the no-match diagnosis points at the first differing column past the indentation", () => {
  const line = "    const total = items.reduce((sum, item) => sum + item.price, 0);";
  const file = `function f(items) {\n${line}\n  return total;\n}\n`;
  // Copied from mid-line (no indentation) with a change 45 characters into the text.
  const typed = line.trim().replace("item.price", "item.cost");
  const e = failure(file, `function f(items) {\n${typed}\n  return total;`, "x");
  assertEquals(e.code, "NO_MATCH");
  const col = line.indexOf("item.price") + 6; // 1-based column of "price" in the file's line
  assertStringIncludes(e.detail!, `differs from column ${col}:`);
  assertStringIncludes(e.detail!, "the indentation differs too: old_text has none");
});
