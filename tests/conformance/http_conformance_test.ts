// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in deno.json)
// against `anchorfs mcp --http`, through a proxy that adds the bearer token (the suite cannot
// send one). Scenarios needing the suite's fixture server are in expected_failures.yml; the suite
// exits non-zero on any other failure and on a baseline entry that now passes.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { startAuthProxy } from "../mcp/http/_auth_proxy.ts";
import { startHttpServer, TOKEN_A } from "../mcp/http/_http_harness.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = `${REPO_ROOT}/tests/conformance/expected_failures.yml`;

Deno.test("conformance suite over HTTP: only fixture scenarios fail, as the baseline says", async () => {
  await using server = await startHttpServer();
  await using proxy = startAuthProxy(server.url, TOKEN_A);
  const results = await Deno.makeTempDir({ prefix: "anchorfs-conformance-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        SUITE,
        "server",
        "--url",
        proxy.url,
        "--expected-failures",
        BASELINE,
        "-o",
        results,
      ],
      cwd: REPO_ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const summary = text.slice(text.lastIndexOf("=== SUMMARY ==="));
    assertEquals(out.code, 0, `conformance suite failed:\n${summary}`);
  } finally {
    await Deno.remove(results, { recursive: true }).catch(() => {});
  }
});
