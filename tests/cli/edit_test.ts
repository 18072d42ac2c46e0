// `anchorfs edit` through the real CLI entry on temp files: --old/--new, --dry-run, --batch from a
// file or stdin, and failures with exit 1 and the error text the model gets.

import { assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, tempDir, writeTree } from "../_harness.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";
import { matchFinalNewlines } from "../../lib/cli/edit.ts";

Deno.test("anchorfs edit --old/--new replaces text and prints the diff with fresh ids", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\r\ntwo\r\n" });
  const r = await runCliProcess(["edit", "a.txt", "--old", "two", "--new", "2"], { cwd: dir.path });
  assertEquals(r.code, 0, r.stderr);
  assertStringIncludes(r.stdout, "Edited a.txt (str_replace, exact match");
  assertStringIncludes(r.stdout, `+${formatLineId(2, "2")}|2`);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "one\r\n2\r\n");
});

Deno.test("anchorfs edit --dry-run prints the diff and writes nothing", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\ntwo\n" });
  const r = await runCliProcess(["edit", "a.txt", "--old", "one", "--new", "1", "--dry-run"], {
    cwd: dir.path,
  });
  assertEquals(r.code, 0, r.stderr);
  assertStringIncludes(r.stdout, "Dry run, nothing written");
  assertStringIncludes(r.stdout, "-one");
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "one\ntwo\n");
});

Deno.test("anchorfs edit fails with exit 1 and the same error text the model gets", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "x\nx\n" });
  const r = await runCliProcess(["edit", "a.txt", "--old", "x", "--new", "y"], { cwd: dir.path });
  assertEquals(r.code, 1);
  assertStringIncludes(r.stderr, 'error: old_text matches 2 places in "a.txt" exactly');
  assertStringIncludes(r.stderr, "hint: Either (1) add surrounding lines");
  // The flag a person adds, not the tool's JSON argument.
  assertStringIncludes(r.stderr, "(2) pass `--replace-all` to replace every match");
  assertNotIncludes(r.stderr, '"replace_all"');
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "x\nx\n");
  const all = await runCliProcess(["edit", "a.txt", "--old", "x", "--new", "y", "--replace-all"], {
    cwd: dir.path,
  });
  assertEquals(all.code, 0, all.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "y\ny\n");
});

Deno.test("anchorfs edit --batch reads operations from a file or stdin", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "a.txt": "one\ntwo\n",
    "ops.json": JSON.stringify([{ op: "insert", anchor: 0, content: "zero" }]),
  });
  const r = await runCliProcess(["edit", "a.txt", "--batch", "ops.json"], { cwd: dir.path });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "zero\none\ntwo\n");
  const ops = { operations: [{ op: "replace", start: formatLineId(3, "two"), content: "2" }] };
  const r2 = await runCliProcess(["edit", "a.txt", "--batch", "-"], {
    cwd: dir.path,
    stdin: JSON.stringify(ops),
  });
  assertEquals(r2.code, 0, r2.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "zero\none\n2\n");
  const stale = await runCliProcess(["edit", "a.txt", "--batch", "-"], {
    cwd: dir.path,
    stdin: JSON.stringify(ops),
  });
  assertEquals(stale.code, 1);
  assertStringIncludes(stale.stderr, "stale");
  assertStringIncludes(stale.stderr, "nothing was written");
});

Deno.test("anchorfs edit --batch takes one operation object, as the batch_edit tool does", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "f.txt": "x\ny\n" });
  // echo '{"op":"insert","anchor":-1,"content":"z"}' | anchorfs edit f.txt --batch - --dry-run
  const dry = await runCliProcess(["edit", "f.txt", "--batch", "-", "--dry-run"], {
    cwd: dir.path,
    stdin: '{"op":"insert","anchor":-1,"content":"z"}\n',
  });
  assertEquals(dry.code, 0, dry.stderr);
  assertStringIncludes(dry.stdout, "Dry run, nothing written");
  assertStringIncludes(dry.stdout, `+${formatLineId(3, "z")}|z`);
  assertEquals(await Deno.readTextFile(`${dir.path}/f.txt`), "x\ny\n");
  const bad = await runCliProcess(["edit", "f.txt", "--batch", "-"], {
    cwd: dir.path,
    stdin: "{op: insert}",
  });
  // A malformed argument, like a bad --start: exit 2.
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, 'error: --batch "-" is not a JSON list of operations');
  // The --batch input is JSON, and the hint says so before its JSON examples.
  assertStringIncludes(
    bad.stderr,
    'hint: --batch "-" must be JSON: a list, e.g. [{"op":"insert","anchor":-1,',
  );
});

Deno.test("anchorfs edit --old-file - reads old text from stdin; usage errors exit 2", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\nbeta\n", "new.txt": "BETA\n" });
  const r = await runCliProcess(["edit", "a.txt", "--old-file", "-", "--new-file", "new.txt"], {
    cwd: dir.path,
    stdin: "beta\n",
  });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "alpha\nBETA\n");
  const usage = await runCliProcess(["edit", "a.txt", "--old", "a"], { cwd: dir.path });
  assertEquals(usage.code, 2);
  assertStringIncludes(usage.stderr, "--new");
});

Deno.test("anchorfs edit: a final newline from --old-file/stdin does not join lines when --new is an argument", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "alpha\nbeta\ngamma\n" });
  const r = await runCliProcess(["edit", "a.txt", "--old-file", "-", "--new", "BETA"], {
    cwd: dir.path,
    stdin: "beta\n",
  });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "alpha\nBETA\ngamma\n");
  await Deno.writeTextFile(`${dir.path}/new.txt`, "GAMMA\n");
  const back = await runCliProcess(["edit", "a.txt", "--old", "gamma", "--new-file", "new.txt"], {
    cwd: dir.path,
  });
  assertEquals(back.code, 0, back.stderr);
  assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "alpha\nBETA\nGAMMA\n");
});

Deno.test("matchFinalNewlines only evens out a file's final newline against an argument", () => {
  assertEquals(matchFinalNewlines("b\n", "B", true, false), ["b", "B"]);
  assertEquals(matchFinalNewlines("b", "B\r\n", false, true), ["b", "B"]);
  // Both from files, both arguments, a deletion, or an argument ending in a newline: as written.
  assertEquals(matchFinalNewlines("b\n", "B", true, true), ["b\n", "B"]);
  assertEquals(matchFinalNewlines("b\n", "B", false, false), ["b\n", "B"]);
  assertEquals(matchFinalNewlines("b\n", "", true, false), ["b\n", ""]);
  assertEquals(matchFinalNewlines("b\n", "B\n", true, false), ["b\n", "B\n"]);
});

Deno.test("anchorfs edit on a directory: the hint is the anchorfs command that lists it", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "src/a.txt": "x\n" });
  const r = await runCliProcess(["edit", "src", "--old", "x", "--new", "y"], { cwd: dir.path });
  assertEquals(r.code, 1, r.stderr);
  assertStringIncludes(
    r.stderr,
    `hint: \`anchorfs view ${dir.path}/src\` lists its files; name one of them.`,
  );
  assertNotIncludes(r.stderr, '{"path"');
});

Deno.test("anchorfs edit --batch with a stale id names the anchorfs view of the range", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "x.txt": "a\nb\n" });
  const stale = JSON.stringify([{ op: "replace", start: "1:00", content: "z" }]);
  const r = await runCliProcess(["edit", "x.txt", "--batch", "-"], {
    cwd: dir.path,
    stdin: stale,
  });
  assertEquals(r.code, 1, r.stderr);
  assertStringIncludes(r.stderr, "error: Line id for x.txt is stale");
  assertStringIncludes(r.stderr, "To see more: `anchorfs view x.txt --start 1 --end 2`");
  assertNotIncludes(r.stderr, '{"path"');
  assertEquals(await Deno.readTextFile(`${dir.path}/x.txt`), "a\nb\n");
});

Deno.test("anchorfs edit: a diff cut at 400 lines names the anchorfs view of the rest", async () => {
  await using dir = await tempDir();
  // A change every sixth line: 150 hunks, more than a result diff shows.
  const lines = Array.from({ length: 900 }, (_, i) => i % 6 === 0 ? "k" : `l${i}`);
  await writeTree(dir.path, { "big.txt": `${lines.join("\n")}\n` });
  const r = await runCliProcess(
    ["edit", "big.txt", "--old", "k", "--new", "K", "--replace-all"],
    { cwd: dir.path },
  );
  assertEquals(r.code, 0, r.stderr);
  assertStringIncludes(
    r.stdout,
    "... diff cut at 400 lines; `anchorfs view big.txt` for the rest.",
  );
  assertNotIncludes(r.stdout, '{"path"');
});

Deno.test("anchorfs edit --batch with no operations shows an example the same command reads", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "x.txt": "a\nb\n" });
  const empty = await runCliProcess(["edit", "x.txt", "--batch", "-"], {
    cwd: dir.path,
    stdin: "[]",
  });
  assertEquals(empty.code, 2, empty.stderr);
  const example = /^hint: e\.g\. (\{.*\})$/m.exec(empty.stderr)?.[1];
  assertEquals(example?.startsWith('{"operations":[{"op":"replace"'), true, empty.stderr);
  // Fed back as the batch, the example parses: it fails only on its made-up ids.
  const again = await runCliProcess(["edit", "x.txt", "--batch", "-", "--dry-run"], {
    cwd: dir.path,
    stdin: example!,
  });
  assertEquals(again.code, 1, again.stderr);
  assertStringIncludes(again.stderr, "error: 2 line ids for x.txt are stale");
});
