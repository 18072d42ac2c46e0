// The MCP registry manifest (server.json): valid against the registry's rules of its current
// schema, 2025-12-11 (restated in tests/fixtures for an offline check), and naming the same package, version and release
// binaries that the npm package and the compile script produce.

import { Ajv } from "ajv";
import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { VERSION } from "../../lib/version.ts";
import { MCP_NAME, packageJson } from "../../scripts/release/npm_pack.ts";
import { outputName, TARGETS } from "../../scripts/release/compile.ts";

/** The registry's current server.json schema: mcp-publisher warns when a manifest names another. */
const CURRENT_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

async function readJson(path: string) {
  return JSON.parse(await Deno.readTextFile(path));
}

async function validator() {
  const schema = await readJson(`${REPO_ROOT}/tests/fixtures/mcp_registry_server.schema.json`);
  // Formats ("uri") are not checked by ajv without ajv-formats; the URLs are checked below.
  return new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
}

Deno.test("server.json satisfies the MCP registry's server.json rules", async () => {
  const validate = await validator();
  const server = await readJson(`${REPO_ROOT}/server.json`);
  const ok = validate(server);
  assertEquals(ok, true, JSON.stringify(validate.errors, null, 2));
  for (const url of [server.websiteUrl, server.repository.url]) new URL(url);
  assertEquals(server.$schema, CURRENT_SCHEMA);
  assertEquals(typeof server.title === "string" && server.title.length > 0, true, "a title");
});

Deno.test("the registry check rejects what the registry rejects", async () => {
  const validate = await validator();
  const server = await readJson(`${REPO_ROOT}/server.json`);
  const broken = [
    { ...server, name: "anchorfs" },
    { ...server, $schema: CURRENT_SCHEMA.replace("2025-12-11", "2025-09-29") },
    { ...server, title: "" },
    { ...server, title: "x".repeat(101) },
    { ...server, icons: [{ src: "http://example.com/icon.png" }] },
    { ...server, icons: [{ src: "https://example.com/icon.png", sizes: ["big"] }] },
    { ...server, description: "x".repeat(101) },
    { ...server, packages: [{ ...server.packages[0], version: "latest" }] },
    { ...server, packages: [{ ...server.packages[0], version: "^0.1.0" }] },
    { ...server, packages: [{ ...server.packages[0], transport: { type: "pipe" } }] },
  ];
  for (const b of broken) assertEquals(validate(b), false, JSON.stringify(b).slice(0, 200));
});

Deno.test("server.json names the npm package, version and binaries this repository builds", async () => {
  const server = await readJson(`${REPO_ROOT}/server.json`);
  assertEquals(server.name, MCP_NAME);
  assertEquals(packageJson().mcpName, MCP_NAME);
  assertEquals(server.version, VERSION);
  const [npm] = server.packages;
  assertEquals(
    [npm.registryType, npm.identifier, npm.version, npm.transport.type],
    ["npm", "anchorfs", VERSION, "stdio"],
  );
  assertEquals(npm.packageArguments.map((a: { value: string }) => a.value), ["mcp"]);
  const binaries = server._meta["io.modelcontextprotocol.registry/publisher-provided"].binaries;
  assertEquals(
    binaries.assets.map((a: { target: string }) => a.target),
    [...TARGETS],
  );
  for (const asset of binaries.assets) {
    assertEquals(asset.url.endsWith(`/v${VERSION}/${outputName(asset.target)}`), true, asset.url);
  }
  assertEquals(binaries.checksums.endsWith(`/v${VERSION}/SHA256SUMS`), true);
});
