// A bad start must look like one: with a --path that does not exist or a malformed flag value, the
// server answers nothing (no early `initialize`), so the real SDK clients fail to connect and the
// reason is on stderr. And the early start's flag rules cover the whole flag table.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import {
  CLIENT_KINDS,
  type ClientKind,
  MAIN_TS,
  REPO_ROOT,
  serverEnv,
  tempDir,
} from "../_harness.ts";
import { EARLY_RULES, MCP_FLAG_SPEC, type McpFlag } from "../../lib/mcp/flag_table.ts";
import { flagsHold, scanOpeningFlags } from "../../lib/mcp/stdio/early_start.ts";
import { parseMcpArgs } from "../../lib/mcp/mcp_args.ts";

/** Connects a real SDK client to `anchorfs mcp ARGS`: whether it connected, and the stderr. */
async function tryConnect(
  kind: ClientKind,
  args: string[],
): Promise<{ connected: boolean; error: string; stderr: string }> {
  const params = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", MAIN_TS, "mcp", ...args],
    env: serverEnv(),
    cwd: REPO_ROOT,
    stderr: "pipe" as const,
  };
  // deno-lint-ignore no-explicit-any
  let client: any, transport: any;
  if (kind === "v1") {
    transport = new V1StdioTransport(params);
    client = new V1Client({ name: "bad-start-v1", version: "1" }, { capabilities: {} });
  } else {
    transport = new V2StdioTransport(params);
    // Legacy mode: it opens with `initialize`, the message the early start answers.
    client = new V2Client(
      { name: "bad-start-v2", version: "2" },
      { capabilities: {}, versionNegotiation: { mode: "legacy" } },
    );
  }
  const chunks: string[] = [];
  transport.stderr?.on?.("data", (d: Uint8Array) => chunks.push(new TextDecoder().decode(d)));
  let connected = false;
  let error = "";
  try {
    await client.connect(transport);
    connected = true;
    // A server that said it was connected and then exited: the tools fetch fails.
    await client.listTools();
  } catch (e) {
    error = String(e);
  } finally {
    await client.close().catch(() => {});
  }
  return { connected, error, stderr: chunks.join("") };
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`a --path that does not exist fails the ${kind} client's connect, with the reason on stderr`, async () => {
    await using dir = await tempDir();
    const missing = `${dir.path}/path/to/project`;
    const r = await tryConnect(kind, ["--path", missing]);
    assertEquals(r.connected, false, `connected, then: ${r.error}`);
    assertStringIncludes(r.stderr, `--path ${JSON.stringify(missing)} does not exist`);
  });

  Deno.test(`a malformed numeric flag fails the ${kind} client's connect, with the reason on stderr`, async () => {
    await using dir = await tempDir();
    const r = await tryConnect(kind, ["--path", dir.path, "--deadline", "soon"]);
    assertEquals(r.connected, false, `connected, then: ${r.error}`);
    assertStringIncludes(r.stderr, "--deadline takes a positive number of seconds");
  });
}

/**
 * For each flag the early start only answers after checking: a value flags.ts refuses (null: it
 * takes any value). A flag added to the table as "checked" without an entry here fails the walk.
 */
const MALFORMED: Partial<Record<McpFlag, string | null>> = {
  "foreground-window": "0",
  "ssh-timeout": "x",
  "state-dir": null,
  "max-file-bytes": "lots",
  deadline: "-1",
  shell: "fish",
  "tail-bytes": "12",
  "passing-tail-lines": "-1",
  "job-memory": "much",
  "job-pids": "1",
};

Deno.test("the early start has a rule for every flag, and answers early only after flags.ts accepted each checked value", async () => {
  await using dir = await tempDir();
  assertEquals(Object.keys(EARLY_RULES).sort(), Object.keys(MCP_FLAG_SPEC).sort());
  for (const [flag, rule] of Object.entries(EARLY_RULES) as [McpFlag, string][]) {
    const value = MCP_FLAG_SPEC[flag].type === "boolean" ? [] : ["1"];
    if (rule === "late") {
      assertEquals(scanOpeningFlags([`--${flag}`, ...value]), undefined, `--${flag} is late`);
      continue;
    }
    if (rule !== "checked") continue;
    assert(flag in MALFORMED, `name a malformed value for --${flag} in MALFORMED`);
    const bad = MALFORMED[flag];
    if (bad === null || bad === undefined) continue;
    const args = ["--path", dir.path, `--${flag}=${bad}`];
    const flags = scanOpeningFlags(args);
    assert(flags?.needsCheck, `--${flag} is checked before an early answer`);
    assertEquals(flagsHold(flags), false, `--${flag}=${bad} is refused`);
  }
  const good = ["--path", dir.path, "--deadline", "5", "--shell", "sh", "--job-pids", "64"];
  assertEquals(flagsHold(scanOpeningFlags(good)!), true);
  // The early scan reads them as the full parser does (what parseServeFlags is given).
  assertEquals(scanOpeningFlags(good)!.values, { ...parseMcpArgs(good) });
  const missing = ["--path", `${dir.path}/nope`];
  assertEquals(flagsHold(scanOpeningFlags(missing)!), false);
});
