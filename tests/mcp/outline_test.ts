// view's outline and symbol through the real server: outline → symbol → an id-verified edit,
// unknown and ambiguous names, files without a grammar, binary, huge and broken files, the
// repository map of a directory, and extract_lines' from_symbol.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT, startServer, tempDir, writeTree } from "../_harness.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { OUTLINE_MAX_BYTES } from "../../lib/core/outline/outline_render.ts";

const SAMPLE = await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.ts`);
const SAMPLE_LINES = SAMPLE.split("\n");
const idOf = (n: number) => formatLineId(n, SAMPLE_LINES[n - 1]!);

Deno.test("outline → symbol → batch_edit: the symbol's ids go straight into an edit", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "src/jobs.ts": SAMPLE });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });

  const outline = await server.call("view", { path: "src/jobs.ts", outline: true });
  assertEquals(outline.isError, false, outline.text);
  assertStringIncludes(outline.text, "src/jobs.ts: TypeScript, 59 lines, 13 declarations.");
  assertStringIncludes(outline.text, `\n${idOf(24)} class JobManager 24-45 extends EventEmitter\n`);
  assertStringIncludes(
    outline.text,
    `\n  ${idOf(32)} method JobManager.start 32-36 (spec: JobSpec): JobId\n`,
  );
  assertStringIncludes(outline.text, `\n  ${idOf(54)} function Internal.helper 54-56 (): number`);

  const symbol = await server.call("view", { path: "src/jobs.ts", symbol: "JobManager.start" });
  assertEquals(symbol.isError, false, symbol.text);
  const lines = symbol.text.split("\n");
  assertEquals(
    lines[0],
    "src/jobs.ts: method JobManager.start, lines 32-36 (its doc comment from line 31):",
  );
  assertEquals(lines[1], `${idOf(31)}|  /** Starts a job. */`);
  assertEquals(lines[6], `${idOf(36)}|  }`);
  assertStringIncludes(symbol.text, "[Showing lines 31-36 of 59 lines.]");
  // Nothing beyond the declaration: not the next method.
  assertNotIncludes(symbol.text, "async stop");

  const edit = await server.call("batch_edit", {
    path: "src/jobs.ts",
    operations: [{
      op: "replace",
      start: idOf(33),
      end: idOf(33),
      content: "    const id = `job-${this.jobs.size + 1}`;",
    }],
  });
  assertEquals(edit.isError, false, edit.text);
  const after = await Deno.readTextFile(`${dir.path}/src/jobs.ts`);
  assertStringIncludes(after, "const id = `job-${this.jobs.size + 1}`;");
  assertEquals(after.split("\n").length, SAMPLE_LINES.length);

  // start/end with outline: the declarations in those lines only.
  const window = await server.call("view", { path: "src/jobs.ts", outline: true, start: 46 });
  assertStringIncludes(window.text, "4 declarations in lines 46-59.");
  assertStringIncludes(window.text, " function formatJob 47-49");
  assertNotIncludes(window.text, "class JobManager");

  // The outline of one declaration: its members only.
  const members = await server.call("view", {
    path: "src/jobs.ts",
    outline: true,
    symbol: "JobManager",
  });
  assertStringIncludes(members.text, "class JobManager (lines 24-45), 4 declarations in it.");
  assertNotIncludes(members.text, "formatJob");
});

Deno.test("an unknown symbol answers the closest names with their calls; an ambiguous one each range", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "jobs.ts": SAMPLE,
    "twice.py":
      "class A:\n    def run(self):\n        pass\n\n\nclass B:\n    def run(self):\n        pass\n",
  });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const unknown = await server.call("view", { path: "jobs.ts", symbol: "JobManager.strat" });
  assertEquals(unknown.isError, true);
  assertStringIncludes(
    unknown.text,
    'No declaration named "JobManager.strat" in jobs.ts (13 declarations).',
  );
  assertStringIncludes(
    unknown.text,
    'Closest: view {"path":"jobs.ts","symbol":"JobManager.start"} (method, lines 32-36)',
  );
  assertStringIncludes(unknown.text, 'every name: view {"path":"jobs.ts","outline":true}');

  const ambiguous = await server.call("view", { path: "twice.py", symbol: "run" });
  assertEquals(ambiguous.isError, true);
  assertStringIncludes(ambiguous.text, '"run" names 2 declarations in twice.py');
  assertStringIncludes(
    ambiguous.text,
    'method A.run (lines 2-3): view {"path":"twice.py","start":2,"end":3}',
  );
  assertStringIncludes(
    ambiguous.text,
    'method B.run (lines 7-8): view {"path":"twice.py","start":7,"end":8}',
  );
  const qualified = await server.call("view", { path: "twice.py", symbol: "B.run" });
  assertStringIncludes(qualified.text, "twice.py: method B.run, lines 7-8:");
  // `::` and `#` are read as `.`; case is forgiven when nothing matches exactly.
  const colons = await server.call("view", { path: "twice.py", symbol: "b::RUN" });
  assertStringIncludes(colons.text, "twice.py: method B.run, lines 7-8:");
});

Deno.test("files without a grammar, binary, oversized and unparsable files", async () => {
  await using dir = await tempDir();
  const big = "export const x = 1;\n".repeat(60_000); // 1.2 MB: past the parse cap
  await writeTree(dir.path, {
    "README.md": "# Title\n\n## Part\n",
    "data.ts": new Uint8Array([1, 0, 2, 0, 3]),
    "big.ts": big,
    "broken.py": "def before(a):\n    return a\n\ndef broken(x:\n    return x +\n\nclass After:\n" +
      "    def method(self):\n        return 1\n\nLAST = 2\n",
  });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });

  const md = await server.call("view", { path: "README.md", outline: true });
  assertEquals(md.isError, false);
  assertEquals(md.text.split("\n").length, 1, md.text);
  assertStringIncludes(md.text, "README.md has no outline: the outline reads TypeScript, TSX,");
  assertStringIncludes(md.text, 'view {"path":"README.md","content":"^#+ ","regex":true}');
  const mdSymbol = await server.call("view", { path: "README.md", symbol: "Title" });
  assertEquals(mdSymbol.isError, true);
  assertStringIncludes(mdSymbol.text, "README.md has no outline");

  const bin = await server.call("view", { path: "data.ts", outline: true });
  assertStringIncludes(bin.text, "is a binary file");

  const huge = await server.call("view", { path: "big.ts", outline: true });
  assertStringIncludes(
    huge.text,
    "big.ts is too large to outline (1.1 MB; the outline parses files up to 1 MB).",
  );
  assertStringIncludes(huge.text, '"regex":true');

  const broken = await server.call("view", { path: "broken.py", outline: true });
  assertEquals(broken.isError, false, broken.text);
  // The declarations after the broken one are still found, at their lines.
  assertStringIncludes(broken.text, " function before 1-2");
  assertStringIncludes(broken.text, " class After 7-9");
  assertStringIncludes(broken.text, "  8:");
  assertStringIncludes(broken.text, " method After.method 8-9");
  assertStringIncludes(broken.text, " constant LAST 11");
  assertStringIncludes(
    broken.text,
    '[Lines 4-6 do not parse (a syntax error, or syntax newer than the grammar): declarations there may be missing; read them: view {"path":"broken.py","start":4,"end":6}.]',
  );
});

Deno.test("a file past --max-file-bytes is refused with the usual limit", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "big.ts": "export const x = 1;\n".repeat(100) });
  await using server = await startServer({
    client: "v1",
    args: ["--path", dir.path, "--max-file-bytes", "1000"],
  });
  const r = await server.call("view", { path: "big.ts", outline: true });
  assertEquals(r.isError, true);
  assertStringIncludes(r.text, "is limited to 1,000 bytes, so nothing was read");
});

Deno.test("a 1,000-line file of this repository outlines within 4 KB", async () => {
  await using server = await startServer({ client: "v2", args: ["--path", REPO_ROOT] });
  // A file of this repository past 900 lines: lib/ops/jobs/job_manager.ts, then lib/ops/walk.ts
  // were, until each was split by concept; no lib/ file is that long now.
  const path = "scripts/bench/probe_session.ts";
  const lines = (await Deno.readTextFile(`${REPO_ROOT}/${path}`)).split("\n").length;
  assert(lines > 900, `${path} has ${lines} lines`);
  const r = await server.call("view", { path, outline: true });
  assertEquals(r.isError, false, r.text);
  const size = new TextEncoder().encode(r.text).length;
  assert(size <= OUTLINE_MAX_BYTES, `outline of ${path} is ${size} bytes`);
  assertStringIncludes(r.text, " class Probe ");
  assertStringIncludes(r.text, " method Probe.meter ");
});

Deno.test("a directory's outline is a repository map; symbol on a directory says what to do", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    ".gitignore": "dist/\n",
    "src/jobs.ts": SAMPLE,
    "src/notes.md": "# notes\n",
    "dist/out.js": "function hidden() {}\n",
    "tools/run.py": "def main():\n    pass\n",
    "tools/zz_huge.py": "X = 1\n".repeat(100_000), // 600 KB: named, not parsed for a map
    // Four languages: the least frequent one is counted, not mapped (its grammar is not loaded).
    "web/a.css": ".a { color: red; }\n",
    "web/b.css": ".b { color: red; }\n",
    "web/run.sh": "go() {\n  echo\n}\n",
  });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const map = await server.call("view", { path: ".", outline: true });
  assertEquals(map.isError, false, map.text);
  assertStringIncludes(
    map.text,
    ".: repository map of 5 files (1 other file without a grammar not shown)",
  );
  assertStringIncludes(map.text, "\nsrc/jobs.ts (59 lines): constant MAX_JOBS 6, type JobId 8,");
  assertStringIncludes(map.text, "class JobManager 24-45 {constructor, start, stop, size}");
  assertStringIncludes(map.text, "\ntools/run.py (2 lines): function main 1-2");
  assertStringIncludes(map.text, "\ntools/zz_huge.py: over 512 KB, not mapped (outline it alone)");
  assertNotIncludes(map.text, "dist/out.js");
  assertStringIncludes(map.text, "\nweb/a.css (1 line): rule .a 1");
  assertNotIncludes(map.text, "web/run.sh (");
  assertStringIncludes(
    map.text,
    '[1 file in Bash not mapped (a map reads the 3 most frequent languages: each grammar stays in memory once loaded); outline one alone: view {"path":"web/run.sh","outline":true}.]',
  );

  const sub = await server.call("view", { path: "src", outline: true });
  assertStringIncludes(sub.text, "\nsrc/jobs.ts (59 lines):");

  const symbol = await server.call("view", { path: "src", symbol: "JobManager" });
  assertEquals(symbol.isError, true);
  assertStringIncludes(symbol.text, 'view {"path":');
  assertStringIncludes(symbol.text, '"outline":true}');
});

Deno.test("extract_lines from_symbol copies the declaration with its doc comment", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "jobs.ts": SAMPLE });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const r = await server.call("extract_lines", {
    from_path: "jobs.ts",
    from_symbol: "formatJob",
    to_path: "format.ts",
    position: -1,
  });
  assertEquals(r.isError, false, r.text);
  assertEquals(
    await Deno.readTextFile(`${dir.path}/format.ts`),
    SAMPLE_LINES.slice(46, 49).join("\n") + "\n",
  );
  const wrong = await server.call("extract_lines", {
    from_path: "jobs.ts",
    from_symbol: "formatJobs",
    to_path: "format.ts",
    position: -1,
  });
  assertEquals(wrong.isError, true);
  assertStringIncludes(
    wrong.text,
    'extract_lines {"from_path":"jobs.ts","from_symbol":"formatJob","to_path":"format.ts","position":-1}',
  );
  const both = await server.call("extract_lines", {
    from_path: "jobs.ts",
    from_symbol: "formatJob",
    start: 1,
    to_path: "format.ts",
    position: -1,
  });
  assertEquals(both.isError, true);
  assertStringIncludes(both.text, "start/end must be left out");
});
