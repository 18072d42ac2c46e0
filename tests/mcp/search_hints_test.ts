// Hints of a search that found nothing, through the real server: ignored directories that can
// hold the text are named first (text over binary), including .git/info/exclude's and the global
// excludes file's, with the call that searches them; a literal `|` is said to look like
// alternation; a search stopped by the deadline says "Partial" first.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

Deno.test("no match: .venv (hidden, excluded in .git/info/exclude) is named first with the call that searches it, not __pycache__", async () => {
  await using dir = await tempDir();
  const tree: Record<string, string | Uint8Array> = {
    ".git/info/exclude": "# local\n.venv\n",
    ".gitignore": "__pycache__/\n",
    "app/main.py": "import flask\n",
    ".pytest_cache/v/cache/nodeids": "[]\n",
  };
  for (const d of ["app", "tests", "lib"]) {
    tree[`${d}/__pycache__/m.cpython-311.pyc`] = new Uint8Array([0, 1, 2, 3]);
  }
  for (let i = 0; i < 30; i++) tree[`.venv/lib/python3.11/site-packages/pkg/m${i}.py`] = "x = 1\n";
  tree[".venv/lib/python3.11/site-packages/flask/app.py"] = "def make_response(rv):\n";
  await writeTree(dir.path, tree);
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const r = await server.call("view", { path: ".", content: "def make_response" });
  assertEquals(r.isError, false, r.text);
  assertStringIncludes(r.text, "No matches for");
  assertStringIncludes(
    r.text,
    'Ignored directories not searched that can hold the text: ".venv/" (hidden, ',
  );
  assertStringIncludes(r.text, ".git/info/exclude:2 `.venv`");
  const call = /searched whatever the ignore rules: view (\{[^}]*\})/.exec(r.text);
  assert(call, r.text);
  assertEquals(JSON.parse(call[1]!).path, ".venv");
  // The __pycache__ folders are named as binary only, after it.
  assert(r.text.indexOf("__pycache__") > r.text.indexOf(".venv/"), r.text);
  assertStringIncludes(r.text, "binary files only");
  // include_hidden is not offered for .venv (its ignore rule would still skip it).
  assertNotIncludes(r.text.slice(r.text.indexOf("hidden entr")), '".venv"');
  const found = await server.call("view", JSON.parse(call[1]!));
  assertStringIncludes(found.text, "def make_response(rv):");
});

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

Deno.test("the global excludes file (core.excludesFile, ~/.config/git/ignore) is applied and named in the hint", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  await writeTree(home.path, { ".gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n" });
  await writeTree(home.path, { ".gitignore_global": "scratch/\n" });
  await writeTree(dir.path, {
    ".git/HEAD": "ref: refs/heads/main\n",
    "src/a.ts": "export const a = 1;\n",
    "scratch/notes.md": "the needle is here\n",
  });
  await using server = await startServer({
    client: "v2",
    args: ["--path", dir.path],
    // The server's own Deno cache stays where it is: only git's idea of home moves.
    env: { HOME: home.path, DENO_DIR: await denoDir() },
  });
  const listing = await server.call("view", { path: "." });
  assertNotIncludes(listing.text, "scratch/notes.md");
  const r = await server.call("view", { path: ".", content: "needle" });
  assertStringIncludes(r.text, "No matches for");
  assertStringIncludes(r.text, `"scratch/" (${home.path}/.gitignore_global:1 \`scratch/\``);
  assertStringIncludes(r.text, 'view {"path":"scratch","content":"needle"}');
});

Deno.test("a literal search with | says it looks like alternation; a search past the deadline starts with Partial", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.ts": "function parse() {}\nfunction format() {}\n" });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const r = await server.call("view", { path: ".", content: "parse|format" });
  assertStringIncludes(r.text, "its | looks like alternation (this or that), which needs");
  const call = /"regex": true: view (\{[^}]*\})/.exec(r.text)!;
  const again = await server.call("view", JSON.parse(call[1]!));
  assertStringIncludes(again.text, "2 matching lines in 1 file");

  const files: Record<string, string> = {};
  for (let i = 0; i < 600; i++) files[`d${i % 20}/f${i}.txt`] = `line ${i}\n`;
  await using big = await tempDir();
  await writeTree(big.path, files);
  await using slow = await startServer({
    client: "v2",
    args: ["--path", big.path, "--deadline", "0.001"],
  });
  const partial = await slow.call("view", { path: ".", content: "zzz-nowhere" });
  assert(
    partial.text.startsWith("Partial: the search reached the server's 0.001 s deadline "),
    partial.text,
  );
});
