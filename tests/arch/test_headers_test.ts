// Every test file opens with a comment that says what it proves and which real parts it drives
// (the real server over stdio, a real sshd, real processes, or pure functions), so a reader knows
// what a failure there means before reading any test. Reads the files as text.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && path !== "tests/fixtures") out.push(...await testFiles(path));
    else if (e.name.endsWith("_test.ts")) out.push(path);
  }
  return out.sort();
}

/** The file's opening `//` comment (its text without the slashes), or "" when it has none. */
export function header(text: string): string {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    lines.push(line.replace(/^\/\/\s?/, ""));
  }
  return lines.join(" ").trim();
}

/** A header says something: at least a short sentence, not a lint directive or a tag alone. */
function says(text: string): boolean {
  const words = header(text).replace(/deno-lint-ignore\S*(\s+\S+)?/g, "").trim();
  return words.split(/\s+/).length >= 6;
}

Deno.test("every test file opens with a comment on what it proves and what it drives", async () => {
  const without: string[] = [];
  for (const path of await testFiles("tests")) {
    if (!says(await Deno.readTextFile(`${REPO_ROOT}/${path}`))) without.push(path);
  }
  assertEquals(without, []);
});

Deno.test("the header scan tells a header from none (so the rule above can fail)", () => {
  assertEquals(says('import { x } from "./x.ts";\n// a comment later\n'), false);
  assertEquals(says("// deno-lint-ignore-file no-console\nimport {} from './x.ts';\n"), false);
  assertEquals(says("#!/usr/bin/env deno\n// The parser proves nothing here.\n"), false);
  assertEquals(
    says("// parse.ts (pure): heredocs and pipelines parsed as bash reads them.\n\nimport {};\n"),
    true,
  );
  assertEquals(header("// one\n// two\ncode"), "one two");
});
