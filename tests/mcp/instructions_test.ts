// The real server's instructions (v1 client): they tell a model about ids, view and background
// jobs.

import { assertStringIncludes } from "../_assert.ts";
import { startServer } from "../_harness.ts";

Deno.test("the server instructions tell a model about ids, view and background jobs", async () => {
  await using server = await startServer({ client: "v1" });
  const text: string = server.client.getInstructions() ?? "";
  assertStringIncludes(text, "N:hh|content");
  assertStringIncludes(text, "Use view (not cat/grep/ls/find)");
  assertStringIncludes(text, "becomes a job (anchorfs://jobs/ID)");
  assertStringIncludes(text, "never run it again or sleep");
});
