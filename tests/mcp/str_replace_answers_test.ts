// str_replace diagnostics that say what is true, through the real server: identical old and new
// text that does not match as written says where the indentation differs; a mid-line typo shows
// the one region that explains it, compared where the fragment lines up, without an indentation
// complaint a fragment cannot have.

import { assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, writeTree } from "../_harness.ts";

const APP = [
  "import { config } from './config';",
  "",
  "export function start() {",
  "  const retries = computeRetries(config, 3);",
  "  return retries;",
  "}",
  "",
  "export function computeRetries(cfg: Config, n: number) {",
  "  return cfg.retries ?? n;",
  "}",
  "",
  "export function logRetries(cfg: Config) {",
  "  const delays = computeDelays(config, 30);",
  "  const timeouts = computeTimeouts(config, 3);",
  "}",
].join("\n") + "\n";

Deno.test("identical old_text and new_text that do not match as written: says so, and where the indentation differs", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "app.ts": APP });
  await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
  const r = await server.call("text_editor", {
    command: "str_replace",
    path: "app.ts",
    old_text: "    return cfg.retries ?? n;",
    new_text: "    return cfg.retries ?? n;",
  });
  assertEquals(r.isError, true);
  assertStringIncludes(r.text, "old_text and new_text are identical, and old_text does not match");
  assertStringIncludes(
    r.text,
    "line 9: indentation differs: old_text has 4 spaces, the file has 2 spaces",
  );
  assertStringIncludes(r.text, "9:8e|  return cfg.retries ?? n;");
  // Identical texts that do match: the plain NO_CHANGE.
  const same = await server.call("text_editor", {
    command: "str_replace",
    path: "app.ts",
    old_text: "  return retries;",
    new_text: "  return retries;",
  });
  assertStringIncludes(same.text, "old_text and new_text are identical; nothing was written.");
});

Deno.test("a mid-line typo shows the one region that explains it, at the fragment's column, with no indentation note", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "app.ts": APP });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const r = await server.call("text_editor", {
    command: "str_replace",
    path: "app.ts",
    old_text: "computeRetires(config, 3)",
    new_text: "computeRetries(config, 5)",
  });
  assertEquals(r.isError, true);
  assertEquals(r.text.split("Closest region").length - 1, 1, r.text);
  assertStringIncludes(
    r.text,
    'differs from column 29: old_text has "computeRetires(config, 3)", the file has ' +
      '"computeRetries(config, 3);"',
  );
  assertNotIncludes(r.text, "indentation differs too");
  assertNotIncludes(r.text, "computeTimeouts");
});
