// A client with no token tries OAuth discovery and registration; anchorfs answers the probes so
// that the client's error says to pass a bearer token (and how), instead of "HTTP 404".

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp"
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { startHttpServer } from "./_http_harness.ts";

/** The smallest OAuth provider a client needs to start discovery; it never gets a token. */
function oauthProvider(redirected: string[]) {
  return {
    redirectUrl: "http://127.0.0.1:1/callback",
    clientMetadata: { client_name: "probe", redirect_uris: ["http://127.0.0.1:1/callback"] },
    clientInformation: () => undefined,
    saveClientInformation: () => {},
    tokens: () => undefined,
    saveTokens: () => {},
    redirectToAuthorization: (url: URL) => void redirected.push(String(url)),
    saveCodeVerifier: () => {},
    codeVerifier: () => "verifier",
  };
}

Deno.test("http: a v1 client without a token that tries OAuth is told to send Authorization: Bearer", async () => {
  await using server = await startHttpServer();
  const redirected: string[] = [];
  const transport = new V1HttpTransport(new URL(server.url), {
    authProvider: oauthProvider(redirected),
  });
  const client = new V1Client({ name: "no-token", version: "1" }, { capabilities: {} });
  let message = "";
  try {
    await client.connect(transport);
  } catch (e) {
    message = (e as Error).message;
  }
  await client.close().catch(() => {});
  assertStringIncludes(message, "bearer token, not OAuth");
  assertStringIncludes(message, "Authorization: Bearer TOKEN");
  assertEquals(redirected, [], "the client was sent to an authorization page");
});

Deno.test("http: the OAuth metadata probes get 404 with a body that says how to authenticate", async () => {
  await using server = await startHttpServer();
  const base = new URL(server.url);
  for (
    const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
    ]
  ) {
    const r = await fetch(new URL(path, base));
    assertEquals(r.status, 404, path);
    assertStringIncludes((await r.json()).error_description, "Authorization: Bearer");
  }
  const register = await fetch(new URL("/register", base), { method: "POST", body: "{}" });
  assertEquals(register.status, 400);
  const body = await register.json();
  assertEquals(body.error, "invalid_client_metadata");
  assert(body.error_description.includes("--token-file"), body.error_description);
});
