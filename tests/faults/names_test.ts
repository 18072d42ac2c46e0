// Odd file names through the real server: every row of a listing or search is one file, the
// name as shown (quoted when it holds a tab, newline, control character, edge spaces or bytes
// that are not UTF-8) reaches that file in view, batch_edit and str_replace, and only that file
// changes on disk. Also: a search reports the directories it could not read, as a listing does.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, startServer, tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needs = needing("posix-fs");

interface OddName {
  /** How the test creates it: text (UTF-8) or the exact bytes. */
  name: string | Uint8Array;
  /** How listings and searches must show it (written out here, not computed by the encoder). */
  shown: string;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const latin = (...parts: (string | number)[]) =>
  new Uint8Array(parts.flatMap((p) => typeof p === "number" ? [p] : [...bytes(p)]));

const NAMES: OddName[] = [
  { name: "tab\tname.txt", shown: '"tab\\tname.txt"' },
  { name: "new\nline.txt", shown: '"new\\nline.txt"' },
  { name: "cr\rname.txt", shown: '"cr\\rname.txt"' },
  { name: "esc\u001b[31mred.txt", shown: '"esc\\u001b[31mred.txt"' },
  { name: "back\\slash.txt", shown: "back\\slash.txt" },
  { name: 'double"quote.txt', shown: 'double"quote.txt' },
  { name: '"quoted".txt', shown: '"\\"quoted\\".txt"' },
  { name: "  spaces around  ", shown: '"  spaces around  "' },
  { name: "10 lines\tfake.txt", shown: '"10 lines\\tfake.txt"' },
  { name: latin("bad", 0xff, "name.txt"), shown: '"bad\\xffname.txt"' },
  { name: latin("caf", 0xe9, " latin1.txt"), shown: '"caf\\xe9 latin1.txt"' },
];

const content = (i: number) => `first ${i}\nmarker-${i} here\nlast ${i}\n`;

/** Creates a file by its exact name bytes (Deno paths are strings, so bash does the raw ones). */
async function createByBytes(dir: string, name: Uint8Array, text: string): Promise<void> {
  const escaped = [...name].map((b) => `\\${b.toString(8).padStart(3, "0")}`).join("");
  const out = await new Deno.Command("bash", {
    args: ["-c", 'printf "%s" "$2" > "$1/$(printf "$0")"', escaped, dir, text],
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
}

/** Reads a file by its exact name bytes. */
async function readByBytes(dir: string, name: Uint8Array): Promise<string> {
  const escaped = [...name].map((b) => `\\${b.toString(8).padStart(3, "0")}`).join("");
  const out = await new Deno.Command("bash", {
    args: ["-c", 'cat -- "$1/$(printf "$0")"', escaped, dir],
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function makeTree(dir: string): Promise<void> {
  for (const [i, n] of NAMES.entries()) {
    if (typeof n.name === "string") await Deno.writeTextFile(`${dir}/${n.name}`, content(i));
    else await createByBytes(dir, n.name, content(i));
  }
}

async function readBack(dir: string, n: OddName): Promise<string> {
  return typeof n.name === "string"
    ? await Deno.readTextFile(`${dir}/${n.name}`)
    : await readByBytes(dir, n.name);
}

/** The `N:hh` id a result gave the line with this content. */
function idIn(text: string, line: string): string {
  for (const l of text.split("\n")) {
    const m = /^[ +]?([0-9]+:[0-9a-f]{2})\|(.*)$/.exec(l);
    if (m && m[2] === line) return m[1]!;
  }
  throw new Error(`no line ${JSON.stringify(line)} with an id in:\n${text}`);
}

Deno.test("odd names: each listing row is one file, shown quoted when needed", async () => {
  await using dir = await tempDir();
  await makeTree(dir.path);
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const listing = await server.call("view", { path: "." });
  assertEquals(listing.isError, false, listing.text);
  const [header, ...rows] = listing.text.split("\n");
  assertStringIncludes(header!, `${NAMES.length} files`);
  assertEquals(rows.length, NAMES.length, listing.text);
  const firsts = rows.map((row) => {
    const cells = row.split("\t");
    assertEquals(cells.length, 3, `one row, three cells: ${JSON.stringify(row)}`);
    assertEquals(cells[1], "3 lines", row);
    return cells[0]!;
  });
  assertEquals(firsts.sort(), NAMES.map((n) => n.shown).sort());
  // Nothing lossy: no U+FFFD, no raw control characters in the whole text.
  assert(!listing.text.includes("\uFFFD"), listing.text);
  // deno-lint-ignore no-control-regex -- the listing must not carry any
  assert(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(listing.text), listing.text);
});

Deno.test("odd names: search finds them and names each file as the listing does", async () => {
  await using dir = await tempDir();
  await makeTree(dir.path);
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  // Literal (through the parallel scanner) and regex (the plain engine).
  for (const args of [{ content: "marker-" }, { content: "marker-[0-9]+ here", regex: true }]) {
    const search = await server.call("view", { path: ".", ...args });
    assertEquals(search.isError, false, search.text);
    assertStringIncludes(search.text, `${NAMES.length} matching lines in ${NAMES.length} files`);
    for (const [i, n] of NAMES.entries()) {
      assertStringIncludes(search.text, `\n${n.shown} (line 2)\n`);
      // The search's own ids edit the file it names.
      const block = search.text.slice(search.text.indexOf(`\n${n.shown} (line 2)\n`));
      assertStringIncludes(block, `|marker-${i} here`);
    }
  }
  // A multi-root search with quoted roots (one of them holding | in the quoted form's text).
  const roots = `${NAMES[1]!.shown}|${NAMES[9]!.shown}`;
  const both = await server.call("view", { path: roots, content: "marker-" });
  assertEquals(both.isError, false, both.text);
  assertStringIncludes(both.text, "2 matching lines in 2 files");
});

Deno.test("odd names: listing → view → batch_edit and str_replace reach the right file", async () => {
  await using dir = await tempDir();
  await makeTree(dir.path);
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  // Paths come from the listing's rows; the content says which file a row reached.
  const listing = await server.call("view", { path: "." });
  const paths = listing.text.split("\n").slice(1).map((row) => row.split("\t")[0]!);
  assertEquals(paths.length, NAMES.length, listing.text);
  const reached = new Set<number>();
  for (const path of paths) {
    const view = await server.call("view", { path });
    assertEquals(view.isError, false, `${path}: ${view.text}`);
    const i = Number(/\|first ([0-9]+)$/m.exec(view.text)?.[1]);
    const n = NAMES[i]!;
    assertEquals(path, n.shown);
    reached.add(i);
    assertEquals(
      view.text,
      `1:${idIn(view.text, `first ${i}`).slice(2)}|first ${i}\n` +
        `2:${idIn(view.text, `marker-${i} here`).slice(2)}|marker-${i} here\n` +
        `3:${idIn(view.text, `last ${i}`).slice(2)}|last ${i}`,
    );
    const edit = await server.call("batch_edit", {
      path,
      operations: [{
        op: "replace",
        start: idIn(view.text, `marker-${i} here`),
        content: `ed-${i}`,
      }],
    });
    assertEquals(edit.isError, false, `${n.shown}: ${edit.text}`);
    assertStringIncludes(edit.text, `Edited ${n.shown} (batch_edit`);
    const replaced = await server.call("text_editor", {
      command: "str_replace",
      path,
      old_text: `last ${i}`,
      new_text: `end ${i}`,
    });
    assertEquals(replaced.isError, false, `${n.shown}: ${replaced.text}`);
    assertEquals(await readBack(dir.path, n), `first ${i}\ned-${i}\nend ${i}\n`);
  }
  assertEquals(reached.size, NAMES.length, "each row reached a different file");
  // Every file was edited exactly once: none was written through another one's name.
  for (const [i, n] of NAMES.entries()) {
    assertEquals(await readBack(dir.path, n), `first ${i}\ned-${i}\nend ${i}\n`, n.shown);
  }
  const names = [];
  for await (const e of Deno.readDir(dir.path)) names.push(e.name);
  assertEquals(names.length, NAMES.length, `no stray or temporary files: ${names}`);
});

Deno.test(needs("odd names: anchorfs view takes the quoted form on the command line", async () => {
  await using dir = await tempDir();
  await makeTree(dir.path);
  for (const i of [1, 9]) {
    const out = await runCliProcess(["view", NAMES[i]!.shown], { cwd: dir.path });
    assertEquals(out.code, 0, out.stderr);
    assertStringIncludes(out.stdout, `|marker-${i} here`);
  }
  const listing = await runCliProcess(["view", "."], { cwd: dir.path });
  assertStringIncludes(listing.stdout, '\n"bad\\xffname.txt"\t3 lines\t');
}));

/**
 * How to make a directory this test cannot read: chmod 000, and as root also run the server
 * without the capabilities that let root read anyway (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
 */
async function lockedDirLauncher(locked: string): Promise<string[] | null> {
  const launcher = Deno.uid() === 0
    ? [
      "setpriv",
      "--inh-caps=-dac_override,-dac_read_search",
      "--bounding-set=-dac_override,-dac_read_search",
    ]
    : [];
  const probe = await new Deno.Command(launcher[0] ?? "ls", {
    args: [...launcher.slice(1), ...(launcher.length > 0 ? ["ls"] : []), locked],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ code: 0 }));
  return probe.code === 0 ? null : launcher;
}

Deno.test(
  needs("a search reports the directories it could not read, as the listing does", async (t) => {
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/locked`);
    await Deno.writeTextFile(`${dir.path}/locked/secret.txt`, "marker inside\n");
    await Deno.writeTextFile(`${dir.path}/open.txt`, "marker outside\n");
    await Deno.chmod(`${dir.path}/locked`, 0o000);
    try {
      const launcher = await lockedDirLauncher(`${dir.path}/locked`);
      if (launcher === null) {
        await t.step({
          name: "skipped: chmod 000 does not stop this user and capabilities cannot be dropped",
          ignore: true,
          fn: () => {},
        });
        return;
      }
      await using server = await startServer({
        client: "v2",
        args: ["--path", dir.path],
        launcher,
      });
      const sentence = `[1 directory could not be read: "${dir.path}/locked" (permission denied).]`;
      const listing = await server.call("view", { path: "." });
      assertStringIncludes(listing.text, sentence);
      for (const args of [{ content: "marker" }, { content: "mark.r", regex: true }]) {
        const found = await server.call("view", { path: ".", ...args });
        assertEquals(found.isError, false, found.text);
        assertStringIncludes(found.text, "1 matching line in 1 file");
        assertStringIncludes(found.text, sentence);
      }
      const none = await server.call("view", { path: ".", content: "absent" });
      assertStringIncludes(none.text, "No matches");
      assertStringIncludes(none.text, sentence);
    } finally {
      await Deno.chmod(`${dir.path}/locked`, 0o755);
    }
  }),
);

Deno.test("odd names: calls offered in hints reach the file (edge spaces survive)", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/  empty  `, "");
  await Deno.writeTextFile(`${dir.path}/ long\t`, "x\n".repeat(2500));
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  /** The JSON arguments of the first `tool {...}` call in a text. */
  const offered = (text: string, tool: string) => {
    const at = text.indexOf(`${tool} {`);
    assert(at >= 0, text);
    let depth = 0;
    for (let i = at + tool.length + 1; i < text.length; i++) {
      if (text[i] === "{") depth++;
      if (text[i] === "}" && --depth === 0) {
        return JSON.parse(text.slice(at + tool.length + 1, i + 1));
      }
    }
    throw new Error(`no complete call in ${text}`);
  };
  const empty = await server.call("view", { path: '"  empty  "' });
  assertStringIncludes(empty.text, '"  empty  " is empty');
  const insert = await server.call("batch_edit", offered(empty.text, "batch_edit"));
  assertEquals(insert.isError, false, insert.text);
  assertEquals(await Deno.readTextFile(`${dir.path}/  empty  `), "first line\n");
  const long = await server.call("view", { path: '" long\\t"' });
  const next = await server.call(
    "view",
    offered(long.text.slice(long.text.indexOf("Next:")), "view"),
  );
  assertEquals(next.isError, false, next.text);
  assert(/^\d+:[0-9a-f]{2}\|x$/m.test(next.text), next.text);
});
