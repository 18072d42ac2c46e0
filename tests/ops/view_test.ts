// The view use case over the memory backend: file views with ids recorded as shown, ranges by
// number and id, cuts with notices, stale-id reports.

import {
  assert,
  assertEquals,
  assertMatch,
  assertNotIncludes,
  assertRejects,
  assertStringIncludes,
} from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { type AnchorError } from "../../lib/core/errors.ts";
import { hashLine, renderLine } from "../../lib/core/edit/line_id.ts";
import type { FileBackend, TreeEntry } from "../../lib/ops/ports/file_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession, fileKey } from "../../lib/ops/session.ts";
import { type ViewArgs, viewResult } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";
import { renderGuide, toolCallSyntax } from "../../lib/core/next_step.ts";
import { cliStepSyntax } from "../../lib/cli/step_command.ts";

function setup(files: Record<string, string | Uint8Array>, backend?: FileBackend) {
  const mem = new MemoryBackend(files);
  const used = backend ?? mem;
  const locations = new Locations(used);
  const session = createSession(locations.localAt("/repo"));
  return {
    mem,
    session,
    view: (args: ViewArgs) => viewText(locations, session, args),
    key: (path: string) => fileKey(locations.localAt(path)),
  };
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

Deno.test("a file view renders N:hh|content and records what was shown", async () => {
  const t = setup({ "/repo/a.txt": "alpha\nbeta\n" });
  assertEquals(
    await t.view({ path: "a.txt" }),
    `${renderLine(1, "alpha")}\n${renderLine(2, "beta")}`,
  );
  assertEquals(t.session.shown.shownHash(t.key("/repo/a.txt"), 2), hashLine("beta"));
});

Deno.test("ranges by number, negative numbers, string numbers and clamping with a notice", async () => {
  const t = setup({ "/repo/a.txt": lines(10) });
  const r = await t.view({ path: "a.txt", start: "3", end: 4 });
  assert(r.startsWith(`${renderLine(3, "line 3")}\n${renderLine(4, "line 4")}\n`));
  assertStringIncludes(r, "Showing lines 3-4 of 10 lines");
  assert((await t.view({ path: "a.txt", start: -2 })).startsWith(renderLine(9, "line 9")));
  const clamped = await t.view({ path: "a.txt", start: 8, end: 99 });
  assertStringIncludes(clamped, "end 99 is past the end (the file has 10 lines); used 10.");
  const error = await assertRejects(() =>
    t.view({ path: "a.txt", start: 5, end: 2 })
  ) as AnchorError;
  assertStringIncludes(error.hint!, '{"path":"a.txt","start":2,"end":5}');
});

Deno.test("ranges by id are verified; a stale id gives the stale-id report", async () => {
  const t = setup({ "/repo/a.txt": lines(10) });
  const id = `4:${hashLine("line 4").toString(16).padStart(2, "0")}`;
  assert((await t.view({ path: "a.txt", start: id, end: 4 })).startsWith(renderLine(4, "line 4")));
  t.mem.put("/repo/a.txt", new TextEncoder().encode("new\n" + lines(10)));
  const error = await assertRejects(() => t.view({ path: "a.txt", start: id })) as AnchorError;
  assertEquals(error.code, "STALE_LINE_ID");
  assertStringIncludes(
    error.detail!,
    `Content with hash ${id.slice(2)} is now at: ${renderLine(5, "line 4")}`,
  );
  const bad = await assertRejects(() => t.view({ path: "a.txt", start: "4:zz" })) as AnchorError;
  assertEquals(bad.code, "INVALID_LINE_ID");
});

Deno.test("a large file is cut with a notice naming the next range", async () => {
  const t = setup({ "/repo/big.txt": lines(5000) });
  const r = await t.view({ path: "big.txt" });
  assertEquals(r.split("\n").filter((l) => /^\d+:[0-9a-f]{2}\|/.test(l)).length, 2000);
  assertStringIncludes(r, 'Next: view {"path":"big.txt","start":2001,"end":4000}');
});

Deno.test("binary, empty, CRLF and BOM files are described", async () => {
  const t = setup({
    "/repo/bin": new Uint8Array([1, 0, 2, 3]),
    "/repo/empty": "",
    "/repo/crlf.txt": "a\r\nb\r\n",
    "/repo/bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0a]),
  });
  assertStringIncludes(
    await t.view({ path: "bin" }),
    "is a binary file (contains NUL bytes, 4 bytes)",
  );
  assertEquals(
    await t.view({ path: "empty" }),
    'empty is empty (0 lines). To add lines: batch_edit {"path":"empty","operations":' +
      '[{"op":"insert","anchor":0,"content":"first line"}]}',
  );
  const crlf = await t.view({ path: "crlf.txt" });
  assert(crlf.startsWith(`${renderLine(1, "a")}\n${renderLine(2, "b")}\n`));
  assertStringIncludes(crlf, "CRLF line endings");
  assert((await t.view({ path: "bom.txt" })).startsWith(renderLine(1, "hi")));
});

Deno.test("a missing path names the nearest existing parent and the next view call", async () => {
  const t = setup({ "/repo/src/a.ts": "x\n" });
  const error = await assertRejects(() => t.view({ path: "src/nope/b.ts" })) as AnchorError;
  assertStringIncludes(
    error.message,
    'No file or directory at "/repo/src/nope/b.ts". The nearest existing parent is "/repo/src"',
  );
  assertStringIncludes(error.hint!, 'view {"path":"/repo/src"}');
});

const tree = {
  "/repo/.git/info/exclude": "secret.txt\n",
  "/repo/.git/HEAD": "ref\n",
  "/repo/.gitignore": "*.log\nbuild/\n",
  "/repo/.hidden/x.ts": "hidden\n",
  "/repo/README.md": "# hi\nTODO top\n",
  "/repo/secret.txt": "TODO secret\n",
  "/repo/app.log": "TODO log\n",
  "/repo/build/out.js": "TODO built\n",
  "/repo/src/a.ts": "const a = 1;\n// TODO a\n",
  "/repo/src/a_test.ts": "TODO test\n",
  "/repo/src/deep/.gitignore": "gen.ts\n!keep.log\n",
  "/repo/src/deep/gen.ts": "TODO gen\n",
  "/repo/src/deep/keep.log": "TODO keep\n",
  "/repo/src/deep/b.ts": "x\ny\nTODO b\n",
  "/repo/img.png": new Uint8Array([0x89, 0x50, 0, 0]),
};

Deno.test("a listing says 1 byte and ~1 token, not 1 bytes and ~1 tokens", async () => {
  const t = setup({ "/repo/a.txt": "x", "/repo/b.bin": new Uint8Array([0]) });
  const r = await t.view({ path: "." });
  assertStringIncludes(r, "a.txt\t1 line\t~1 token\n");
  assertStringIncludes(r, "b.bin\tbinary\t1 byte");
});

Deno.test("a directory listing follows nested .gitignore, info/exclude and hidden rules", async () => {
  const t = setup(tree);
  const r = await t.view({ path: "." });
  const rows = r.split("\n").slice(1);
  assertEquals(rows.map((row) => row.split("\t")[0]), [
    "README.md",
    "img.png",
    "src/a.ts",
    "src/a_test.ts",
    "src/deep/b.ts",
    "src/deep/keep.log",
  ]);
  assertStringIncludes(r, "src/deep/b.ts\t3 lines\t~3 tokens");
  assertStringIncludes(r, "img.png\tbinary\t4 bytes");
  assertMatch(rows[0]!, /^README\.md\t2 lines\t~4 tokens$/);
  const hidden = await t.view({ path: ".", include_hidden: "true" });
  assertStringIncludes(hidden, ".hidden/x.ts\t");
  assertStringIncludes(hidden, ".gitignore\t");
  assertNotIncludes(hidden, ".git/");
});

Deno.test("pattern and max_depth narrow a listing; an empty result is a sentence", async () => {
  const t = setup(tree);
  const r = await t.view({ path: ".", pattern: "*.ts|!*_test.ts" });
  assertEquals(r.split("\n").slice(1).map((row) => row.split("\t")[0]), [
    "src/a.ts",
    "src/deep/b.ts",
  ]);
  const shallow = await t.view({ path: ".", max_depth: "1" });
  assertStringIncludes(shallow, "src/\tdirectory, not entered (max_depth 1)");
  assertNotIncludes(shallow, "src/a.ts");
  assertEquals(
    await t.view({ path: ".", pattern: "*.rs" }),
    'No files to list in "." matching pattern "*.rs": scanned 6 files (.gitignore rules applied; ' +
      'hidden files skipped; pattern "*.rs"). 4 entries gitignored, not listed: "app.log" ' +
      '(.gitignore:1 `*.log`), "build/" (.gitignore:2 `build/`), "secret.txt" ' +
      "(.git/info/exclude:1 `secret.txt`), …; an ignored directory is listed when named as the " +
      'path: view {"path":"build","pattern":"*.rs"}. 1 hidden entry skipped (".hidden/"): view ' +
      '{"path":".","pattern":"*.rs","include_hidden":true} includes it. Try a broader pattern or ' +
      'none: view {"path":"."}.',
  );
  const bad = await assertRejects(() => t.view({ path: ".", pattern: "{a,}" })) as AnchorError;
  assertEquals(bad.code, "INVALID_PATTERN");
});

Deno.test("search groups matches by file with ids, context, and records only printed runs", async () => {
  const t = setup(tree);
  const r = await t.view({ path: ".", content: "TODO", pattern: "*.ts" });
  assertStringIncludes(
    r,
    '3 matching lines in 3 files for literal "TODO" in "." (searched 3 files)',
  );
  assertStringIncludes(r, `src/a.ts (line 2)\n${renderLine(2, "// TODO a")}`);
  assertStringIncludes(r, `src/deep/b.ts (line 3)\n${renderLine(3, "TODO b")}`);
  assertNotIncludes(r, "gen.ts");
  const withContext = await t.view({ path: "src/deep", content: "TODO", context: 1 });
  assertStringIncludes(withContext, `${renderLine(2, "y")}\n${renderLine(3, "TODO b")}`);
  const key = t.key("/repo/src/deep/b.ts");
  assertEquals(t.session.shown.shownHash(key, 2), hashLine("y"));
  assertEquals(t.session.shown.shownHash(key, 1), undefined, "line 1 was not printed");
});

Deno.test("search: regex with (?i), several roots, a single file, zero matches and errors", async () => {
  const t = setup(tree);
  const ci = await t.view({ path: "src|README.md", content: "(?i)^todo", regex: true });
  assertStringIncludes(ci, 'in "src", "README.md"');
  assertStringIncludes(ci, `README.md (line 2)\n${renderLine(2, "TODO top")}`);
  assertStringIncludes(ci, "src/a_test.ts (line 1)");
  assertNotIncludes(ci, "src/a.ts (");
  const none = await t.view({ path: "src", content: "nothing-like-this" });
  assertEquals(
    none,
    'No matches for literal "nothing-like-this" in "src": searched 4 files (.gitignore rules ' +
      'applied; hidden files skipped). 1 entry gitignored, not searched: "src/deep/gen.ts" ' +
      "(src/deep/.gitignore:1 `gen.ts`); an ignored file is searched when named as the path: " +
      'view {"path":"src/deep/gen.ts","content":"nothing-like-this"}. Literal search is ' +
      'case-sensitive; to ignore case: view {"path":"src","content":"(?i)nothing-like-this",' +
      '"regex":true}.',
  );
  // No file searched: ignoring case would not help, a broader pattern may.
  const noFiles = await t.view({ path: "src", content: "nothing-like-this", pattern: "*.md" });
  assertStringIncludes(noFiles, "searched 0 files");
  assertStringIncludes(noFiles, "Try a broader pattern or none");
  assertNotIncludes(noFiles, "case-sensitive");
  const bad = await assertRejects(() =>
    t.view({ path: ".", content: "a(", regex: true })
  ) as AnchorError;
  assertEquals(bad.code, "INVALID_REGEX");
  const emptyRoot = await assertRejects(() =>
    t.view({ path: "src||x", content: "a" })
  ) as AnchorError;
  assertStringIncludes(emptyRoot.message, "empty root");
});

Deno.test("search shows a long line around its match, with the cut on each side and a whole-line id", async () => {
  // A minified bundle: the match lies 9,000 characters into one 20,000-character line.
  const bundle = "var a=1;".repeat(1125) + "function needleHere(){}" + "x".repeat(10_977);
  const context = "c".repeat(1000);
  const t = setup({ "/repo/dist/app.min.js": `${context}\n${bundle}\n` });
  for (const regex of [false, true]) {
    const r = await t.view({
      path: "dist",
      content: regex ? "needle\\w+" : "needleHere",
      regex,
      context: 1,
    });
    const shown = r.split("\n").find((l) => l.startsWith("2:"))!;
    assertStringIncludes(shown, "function needleHere(){}");
    assertStringIncludes(
      shown,
      "[line cut: 20,000 characters; shown 8,815-9,214: 8,814 cut before, 10,786 after]",
    );
    assert(shown.startsWith(`${renderLine(2, bundle).split("|")[0]}|…1;var a=1;`), shown);
    // A context line shows its head.
    assertStringIncludes(r, "\n1:");
    assertStringIncludes(r, "[line cut: 1,000 characters; shown 1-400: 600 cut after]");
  }
  // The id is the whole line's: it was recorded as shown and names the line in edits.
  assertEquals(t.session.shown.shownHash(t.key("/repo/dist/app.min.js"), 2), hashLine(bundle));
  // A match within the first 400 characters keeps the line's head.
  const head = await t.view({ path: "dist", content: "var a=1;" });
  assertStringIncludes(head, "shown 1-400: 19,600 cut after]");
});

Deno.test("an empty search names the rule that ignored a directory, and the call that searches it", async () => {
  const t = setup({
    "/repo/.git/HEAD": "ref\n",
    "/repo/.gitignore": "# deps\nnode_modules/\n",
    "/repo/index.js": "require('left-pad');\n",
    "/repo/node_modules/left-pad/index.js": "module.exports = function leftPad() {};\n",
  });
  const r = await t.view({ path: ".", content: "leftPad" });
  // The lone hidden entry is the .gitignore whose rules were applied: no include_hidden tip.
  assertNotIncludes(r, "include_hidden");
  assertNotIncludes(r, "hidden entr");
  const call = '{"path":"node_modules","content":"leftPad"}';
  assertStringIncludes(
    r,
    'Ignored directories not searched that can hold the text: "node_modules/" (.gitignore:2 ' +
      "`node_modules/`; 1 file); a directory named as the path is searched whatever the ignore " +
      `rules: view ${call}.`,
  );
  const found = await t.view(JSON.parse(call));
  assertStringIncludes(found, "node_modules/left-pad/index.js (line 1)");
  // A hidden entry that is not an ignore file is named, with the call that includes it.
  const h = setup({ "/repo/.env": "TOKEN=leftPad\n", "/repo/a.txt": "x\n" });
  assertStringIncludes(
    await h.view({ path: ".", content: "leftPad" }),
    '1 hidden entry skipped (".env"): view {"path":".","content":"leftPad","include_hidden":true} ' +
      "includes it.",
  );
});

Deno.test("search output is capped with a notice on how to narrow", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    files[`/repo/f${String(i).padStart(2, "0")}.txt`] = "hit\n".repeat(30);
  }
  const t = setup(files);
  const r = await t.view({ path: ".", content: "hit" });
  assertStringIncludes(r, "[Output capped at 400 lines; the search stopped there.");
  assert(r.startsWith("At least "));
});

/** A MemoryBackend that also offers the bulk operations of high-latency backends, counting calls. */
class BulkMemory extends MemoryBackend implements FileBackend {
  calls = { listTree: 0, readFiles: 0, readFile: 0, readDir: 0 };
  constructor(files: Record<string, string | Uint8Array>) {
    super(files);
  }
  override readFile(path: string) {
    this.calls.readFile++;
    return super.readFile(path);
  }
  override readDir(path: string) {
    this.calls.readDir++;
    return super.readDir(path);
  }
  async listTree(root: string, maxDepth: number | undefined): Promise<TreeEntry[]> {
    this.calls.listTree++;
    const out: TreeEntry[] = [];
    const walk = async (dir: string, depth: number) => {
      for (const e of await super.readDir(dir)) {
        const abs = dir === "/" ? `/${e.name}` : `${dir}/${e.name}`;
        const info = await this.stat(abs);
        out.push({ path: abs.slice(root.length + 1), type: e.type, size: info?.size ?? 0 });
        if (e.type === "dir" && (maxDepth === undefined || depth < maxDepth)) {
          await walk(abs, depth + 1);
        }
      }
    };
    await walk(root, 1);
    return out;
  }
  async *readFiles(paths: readonly string[]) {
    this.calls.readFiles++;
    for (const path of [...paths].reverse()) {
      try {
        yield { path, data: await super.readFile(path) };
      } catch (error) {
        yield { path, error: error as Error };
      }
    }
  }
}

Deno.test("with listTree/readFiles a listing and a search cost a few requests, same text", async () => {
  const plain = setup(tree);
  const bulk = new BulkMemory(tree);
  const remote = setup({}, bulk);
  for (
    const args of [{ path: "." }, { path: ".", content: "TODO", context: 1 }, {
      path: ".",
      max_depth: 1,
    }]
  ) {
    bulk.calls = { listTree: 0, readFiles: 0, readFile: 0, readDir: 0 };
    assertEquals(await remote.view(args), await plain.view(args), JSON.stringify(args));
    assertEquals(bulk.calls.readDir, 0);
    assertEquals(bulk.calls.listTree, 1);
    assert(bulk.calls.readFiles <= 2, `readFiles calls: ${bulk.calls.readFiles}`);
    assert(bulk.calls.readFile <= 1, `readFile calls: ${bulk.calls.readFile}`);
  }
});

Deno.test("a stale id in view says nothing about writing and its report's lines count as shown", async () => {
  const t = setup({ "/repo/a.txt": lines(300) });
  await t.view({ path: "a.txt", start: 1, end: 10 });
  const stale = `200:${((hashLine("line 200") + 1) % 256).toString(16).padStart(2, "0")}`;
  const error = await assertRejects(() => t.view({ path: "a.txt", start: stale })) as AnchorError;
  assertEquals(error.code, "STALE_LINE_ID");
  assertNotIncludes(error.message, "written");
  assertStringIncludes(error.detail!, renderLine(199, "line 199"));
  // batch_edit checks ranges against what was shown: the report's lines are, with fingerprints.
  const key = t.key("/repo/a.txt");
  for (let n = 198; n <= 202; n++) {
    assertEquals(t.session.shown.shownHash(key, n), hashLine(`line ${n}`), `line ${n}`);
    assert(t.session.shown.shownFingerprint(key, n) !== undefined, `line ${n}`);
  }
});

Deno.test("the encoding notice says what is hidden and what edits keep, in plain words", async () => {
  const t = setup({
    "/repo/crlf.txt": "a\r\nb\r\n",
    "/repo/bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0a]),
    "/repo/bomcrlf.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x0d, 0x0a]),
    "/repo/u16.txt": new Uint8Array([0xff, 0xfe, 0x68, 0, 0x0a, 0]),
    "/repo/latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  });
  const notice = async (path: string) => (await t.view({ path })).split("\n\n")[1];
  assertEquals(
    await notice("crlf.txt"),
    "[File is UTF-8 with CRLF line endings; the CRs are not shown; edits keep CRLF.]",
  );
  assertEquals(
    await notice("bom.txt"),
    "[File is UTF-8 with BOM; the byte order mark is not shown; edits keep the encoding.]",
  );
  assertEquals(
    await notice("bomcrlf.txt"),
    "[File is UTF-8 with BOM and CRLF line endings; the byte order mark and the CRs are not " +
      "shown; edits keep the encoding and CRLF.]",
  );
  assertEquals(
    await notice("u16.txt"),
    "[File is UTF-16 LE; the byte order mark is not shown; edits keep the encoding.]",
  );
  assertEquals(await notice("latin1.txt"), "[File is Latin-1; edits keep the encoding.]");
});

Deno.test("notices about ignored arguments follow the output after a blank line", async () => {
  const t = setup({ "/repo/a.txt": "alpha\n", "/repo/d/b.txt": "beta\n" });
  assertEquals(
    await t.view({ path: "a.txt", pattern: "*.rs" }),
    `${renderLine(1, "alpha")}\n\n[pattern, max_depth and context apply to directories and ` +
      "searches; ignored.]",
  );
  const listing = await t.view({ path: "d", content: "" });
  assertMatch(listing, /b\.txt\t1 line\t~2 tokens\n\n\[content is empty, so this is a listing/);
  // The search it suggests is a whole call, so each interface writes it its own way.
  assertStringIncludes(listing, 'pass the text to find, e.g. view {"path":"d","content":"TODO"}.]');
  assertStringIncludes(
    await t.view({ path: "d", regex: true }),
    "\n\n[regex and context apply to searches (with content); ignored for a listing.]",
  );
  // After the file view's own notices, one notice block.
  assertStringIncludes(
    await t.view({ path: "a.txt", start: 5, context: 1 }),
    "used 1.]\n[pattern, max_depth and context",
  );
});

Deno.test("a listing of several | roots says they work only for a search, with one call per root", async () => {
  const t = setup({ "/repo/src/a.ts": "a\n", "/repo/tests/b.ts": "b\n" });
  const error = await assertRejects(() => t.view({ path: "src|tests" })) as AnchorError;
  assertEquals(error.code, "NOT_FOUND");
  assertStringIncludes(error.message, "several roots joined with | work only for a search");
  assertStringIncludes(error.hint!, 'view {"path":"src"}, view {"path":"tests"}');
  // A search takes them; a single missing path keeps the plain message.
  assertStringIncludes(await t.view({ path: "src|tests", content: "b" }), "tests/b.ts (line 1)");
  const plain = await assertRejects(() => t.view({ path: "nope" })) as AnchorError;
  assertStringIncludes(plain.message, 'No file or directory at "/repo/nope"');
});

Deno.test("hints that follow a sentence start with a capital letter", async () => {
  const t = setup({ "/repo/a.txt": "alpha\n" });
  assertStringIncludes(
    await t.view({ path: ".", content: "zzz", pattern: "*.txt" }),
    '(.gitignore rules applied; hidden files skipped; pattern "*.txt"). Try a broader pattern',
  );
  const bad = await assertRejects(() =>
    t.view({ path: ".", content: "a(b", regex: true })
  ) as AnchorError;
  assertStringIncludes(bad.hint!, "Escape special characters (\\( \\[ \\. \\*), or search");
});

Deno.test("empty optional arguments (as models send them) add no notices", async () => {
  const t = setup({ "/repo/a.txt": "alpha\n", "/repo/d/b.txt": "beta\n" });
  assertEquals(
    await t.view({ path: "a.txt", start: "", end: "", context: "", max_depth: "", pattern: "" }),
    renderLine(1, "alpha"),
  );
  assertNotIncludes(await t.view({ path: "d", context: "", regex: "false" }), "[");
});

Deno.test("a listing past 1,000 rows shows the first 1,000 in path order and counts the rest exactly", async () => {
  const files: Record<string, string> = {};
  // 1,300 files over directories whose walk batches end at odd places, one directory cut deeper.
  for (let i = 0; i < 1300; i++) {
    files[`/repo/d${String(i % 13).padStart(2, "0")}/f${String(i).padStart(4, "0")}.txt`] = "x\n";
  }
  files["/repo/d00/deep/inner/z.txt"] = "z\n";
  const t = setup(files);
  const out = await t.view({ path: ".", max_depth: 3 });
  const rows = out.split("\n").filter((l) => l.includes("\t"));
  assertEquals(rows.length, 1000);
  const expected = Object.keys(files).map((p) => p.slice("/repo/".length))
    .filter((p) => !p.startsWith("d00/deep/")).concat(["d00/deep/inner/"]).sort();
  assertEquals(rows.map((r) => r.split("\t")[0]), expected.slice(0, 1000));
  assertStringIncludes(out, "1,300 files, 1 directory not entered");
  assertStringIncludes(out, "Listed the first 1,000 entries; 301 more files not shown.");
  // The same count through a pattern, with files it drops past the last row.
  for (let i = 0; i < 50; i++) files[`/repo/d12/skip${i}.md`] = "x\n";
  const filtered = await setup(files).view({ path: ".", pattern: "**/*.txt", max_depth: 3 });
  assertStringIncludes(filtered, "1,300 files, 1 directory not entered");
  assertStringIncludes(filtered, "Listed the first 1,000 entries; 301 more files not shown.");
});

Deno.test("a view result carries its suggested calls as steps, written per syntax by the adapters", async () => {
  const mem = new MemoryBackend({ "/repo/big.txt": lines(2500), "/repo/empty.txt": "" });
  const locations = new Locations(mem);
  const session = createSession(locations.localAt("/repo"));
  const page = await viewResult(locations, session, { path: "big.txt", context: 3 });
  assertEquals(page.next, [{ tool: "view", args: { path: "big.txt", start: 2001, end: 2500 } }]);
  // The same text in each syntax: tool calls for a model, command lines for a person.
  const asCall = renderGuide(page, toolCallSyntax);
  assertStringIncludes(asCall, 'Next: view {"path":"big.txt","start":2001,"end":2500}]');
  assertStringIncludes(asCall, "\n[pattern, max_depth and context apply to directories");
  assertStringIncludes(
    renderGuide(page, cliStepSyntax),
    "Next: `anchorfs view big.txt --start 2001 --end 2500`]",
  );
  const empty = await viewResult(locations, session, { path: "empty.txt" });
  assertEquals(empty.next.map((s) => s.tool), ["batch_edit"]);
  // A re-view of an unchanged whole file offers the full view.
  const small = new Locations(new MemoryBackend({ "/repo/a.txt": "a\n" }));
  const again = createSession(small.localAt("/repo"));
  await viewResult(small, again, { path: "a.txt" });
  const unchanged = await viewResult(small, again, { path: "a.txt" });
  assertEquals(unchanged.next, [{ tool: "view", args: { path: "a.txt", full: true } }]);
  assertStringIncludes(renderGuide(unchanged, toolCallSyntax), 'view {"path":"a.txt","full":true}');
});
