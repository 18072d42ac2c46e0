// The runner's groups (scripts/test.ts): `deno task test:fast` runs the pure and in-process layers
// and `deno task test:release` the packaging tests, while `deno task test` (the README's command)
// still runs all of tests/. Reads deno.json and the folders on disk; runs no tests itself.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { GROUPS, testPaths } from "../../scripts/test.ts";

Deno.test("test:fast and test:release call the runner with their group; test runs everything", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`)).tasks;
  assertEquals(tasks.test, "deno run -A scripts/test.ts");
  assertEquals(tasks["test:fast"], "deno run -A scripts/test.ts --fast");
  assertEquals(tasks["test:release"], "deno run -A scripts/test.ts --release");
});

Deno.test("testPaths: a group names its folders, paths pass through, nothing given is all of tests/", () => {
  assertEquals(testPaths([]), ["tests/"]);
  assertEquals(testPaths(["--fast"]), ["tests/core/", "tests/ops/", "tests/arch/", "tests/docs/"]);
  assertEquals(testPaths(["--release"]), ["tests/scripts/"]);
  assertEquals(testPaths(["tests/core/edit"]), ["tests/core/edit"]);
  assertEquals(testPaths(["--fast", "--filter", "x"]), [...GROUPS.fast!, "--filter", "x"]);
});

Deno.test("every folder a group names exists and is not empty", async () => {
  for (const folder of Object.values(GROUPS).flat()) {
    const names: string[] = [];
    for await (const e of Deno.readDir(`${REPO_ROOT}/${folder}`)) names.push(e.name);
    assertEquals(names.length > 0, true, folder);
  }
});
