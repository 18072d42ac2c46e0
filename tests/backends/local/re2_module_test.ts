// Where the search workers import re2js from: the bundle's own file beside the code, then the
// package by name (scripts/bundle.ts writes the file; tests/scripts/bundle_test.ts runs it).

import { assertEquals } from "../../_assert.ts";
import { RE2_MODULE_FILE, re2ModuleSpecifiers } from "../../../lib/backends/local/re2_module.ts";
import { REPO_ROOT } from "../../_harness.ts";

Deno.test("the search workers try re2js beside the code first, then the package", () => {
  const [beside, bare, ...rest] = re2ModuleSpecifiers();
  assertEquals(beside, new URL(`file://${REPO_ROOT}/lib/backends/local/${RE2_MODULE_FILE}`).href);
  assertEquals(bare, "re2js");
  assertEquals(rest, []);
});
