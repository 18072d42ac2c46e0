// --http flag parsing and bearer tokens: bind rules, allowed names, limits, token sources and the
// token check.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { parseHttpFlags } from "../../../lib/mcp/http/http_options.ts";
import { loadTokens, TokenChecker } from "../../../lib/mcp/http/tokens.ts";
import { isAnchorError } from "../../../lib/core/errors.ts";
import { tempDir } from "../../_harness.ts";

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert(isAnchorError(e), String(e));
    return `${e.message} ${e.hint ?? ""}`;
  }
  throw new Error("no error");
}

Deno.test("parseHttpFlags: loopback binds, defaults, and the names accepted in Host/Origin", () => {
  assertEquals(parseHttpFlags({}), undefined);
  const local = parseHttpFlags({ http: "127.0.0.1:8765" })!;
  assertEquals([local.hostname, local.port, local.isPublic], ["127.0.0.1", 8765, false]);
  assertEquals(local.allowedHosts, ["localhost", "127.0.0.1", "[::1]"]);
  assertEquals([
    local.idleTimeoutMs,
    local.unstreamedTimeoutMs,
    local.maxSessions,
    local.maxBodyBytes,
  ], [
    1_800_000,
    60_000,
    64,
    4 * 1024 * 1024,
  ]);
  const v6 = parseHttpFlags({ http: "[::1]:0", "allow-origin": ["https://MCP.example.com:443"] })!;
  assertEquals([v6.hostname, v6.port], ["::1", 0]);
  assert(v6.allowedHosts.includes("mcp.example.com"));
});

Deno.test("parseHttpFlags: a non-loopback bind needs --http-public; bad values say the form", () => {
  assertStringIncludes(errorOf(() => parseHttpFlags({ http: "0.0.0.0:80" })), "--http-public");
  const pub = parseHttpFlags({ http: "10.1.2.3:80", "http-public": true })!;
  assertEquals(pub.allowedHosts, ["10.1.2.3"]);
  assertStringIncludes(errorOf(() => parseHttpFlags({ http: "8765" })), "HOST:PORT");
  assertStringIncludes(
    errorOf(() => parseHttpFlags({ http: "127.0.0.1:1", "idle-timeout": "0" })),
    "--idle-timeout takes a positive number",
  );
  assertStringIncludes(
    errorOf(() => parseHttpFlags({ http: "127.0.0.1:1", "unstreamed-timeout": "soon" })),
    "--unstreamed-timeout takes a positive number",
  );
  assertStringIncludes(
    errorOf(() => parseHttpFlags({ "token-file": "x" })),
    "--token-file applies to the HTTP server only",
  );
});

Deno.test("loadTokens: a token file (one per line), the environment, or a generated 0600 file", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    `${dir.path}/tokens`,
    "# agents\nfirst-token-0123456789\n\nsecond-token-0123456789\n",
  );
  const file = await loadTokens({ tokenFile: `${dir.path}/tokens`, stateDir: dir.path });
  assertEquals(file.tokens, ["first-token-0123456789", "second-token-0123456789"]);
  const env = await loadTokens({ envToken: "env-token-0123456789", stateDir: dir.path });
  assertEquals(env.tokens, ["env-token-0123456789"]);
  await assertRejectsWith(() => loadTokens({ envToken: "short", stateDir: dir.path }), "16");
  const made = await loadTokens({ stateDir: `${dir.path}/state` });
  assertStringIncludes(made.notice, `${dir.path}/state/http-token`);
  assertStringIncludes(made.notice, made.tokens[0]!);
  assertEquals((await Deno.stat(`${dir.path}/state/http-token`)).mode! & 0o777, 0o600);
  const again = await loadTokens({ stateDir: `${dir.path}/state` });
  assertEquals(again.tokens, made.tokens);
  assert(!again.notice.includes(made.tokens[0]!), "the token was printed twice");
});

Deno.test("TokenChecker: names the matching token; a wrong, partial or missing one matches none", async () => {
  const checker = new TokenChecker(["aaaa-0123456789abcdef", "bbbb-0123456789abcdef"]);
  assertEquals(await checker.match("Bearer bbbb-0123456789abcdef"), 1);
  assertEquals(await checker.match("bearer aaaa-0123456789abcdef"), 0);
  assertEquals(await checker.match("Bearer aaaa-0123456789abcde"), undefined);
  assertEquals(await checker.match("Basic aaaa-0123456789abcdef"), undefined);
  assertEquals(await checker.match(null), undefined);
  assertEquals(await checker.match("Bearer "), undefined);
});

async function assertRejectsWith(f: () => Promise<unknown>, text: string): Promise<void> {
  try {
    await f();
  } catch (e) {
    assertStringIncludes(String((e as Error).message), text);
    return;
  }
  throw new Error("did not reject");
}
