// tools/list is the model's manual: a snapshot keeps every change to names, schemas and
// descriptions reviewable, and the schema rules (no null, annotations set) are checked for both
// protocol eras. Refresh after an intended change: UPDATE_SNAPSHOTS=1 deno test -A tests/mcp/tools_list_test.ts

import { assert, assertEquals } from "../_assert.ts";
import { CLIENT_KINDS, REPO_ROOT, startServer } from "../_harness.ts";
import { typeArrays } from "../../lib/core/tool_args.ts";

/** tools/list rides on every model request: its JSON stays within this many bytes (issue 12). */
const MAX_TOOLS_LIST_BYTES = 10 * 1024;

const SNAPSHOT = `${REPO_ROOT}/tests/mcp/tools_list.snapshot.json`;
const EXPECTED_TOOLS = [
  "batch_edit",
  "extract_lines",
  "jobs",
  "shell",
  "text_editor",
  "view",
  "workdir",
];

// deno-lint-ignore no-explicit-any
function normalize(tools: any[]): unknown {
  return tools
    .map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function findNulls(value: unknown, path: string, out: string[]): void {
  if (value === null) out.push(`${path} is null`);
  else if (Array.isArray(value)) value.forEach((v, i) => findNulls(v, `${path}[${i}]`, out));
  else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === "nullable") out.push(`${path}.nullable`);
      if (k === "type" && (v === "null" || (Array.isArray(v) && v.includes("null")))) {
        out.push(`${path}.type allows null`);
      }
      findNulls(v, `${path}.${k}`, out);
    }
  }
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`tools/list (${kind} client) matches the reviewed snapshot and has no null types`, async () => {
    await using server = await startServer({ client: kind });
    const { tools } = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const actual = normalize(tools) as any[];
    // deno-lint-ignore no-explicit-any
    assertEquals((actual as any[]).map((t) => t.name), EXPECTED_TOOLS);

    const nulls: string[] = [];
    // deno-lint-ignore no-explicit-any
    for (const t of actual as any[]) {
      findNulls(t.inputSchema, t.name, nulls);
      assert(
        typeof t.description === "string" && t.description.length > 80,
        `${t.name} needs a description`,
      );
      assert(
        t.annotations && typeof t.annotations.readOnlyHint === "boolean",
        `${t.name} needs annotations`,
      );
    }
    assertEquals(nulls, []);
    // Some serving stacks read `type` as one string (Inspector --strict warns on arrays).
    assertEquals(actual.flatMap((t) => typeArrays(t.inputSchema, t.name)), []);

    const bytes = new TextEncoder().encode(JSON.stringify(tools)).length;
    // deno-lint-ignore no-console
    console.log(`tools/list (${kind}): ${bytes} bytes (limit ${MAX_TOOLS_LIST_BYTES})`);
    assert(bytes <= MAX_TOOLS_LIST_BYTES, `tools/list is ${bytes} bytes`);

    if (Deno.env.get("UPDATE_SNAPSHOTS") === "1" && kind === "v1") {
      await Deno.writeTextFile(SNAPSHOT, `${JSON.stringify(actual, null, 2)}\n`);
    }
    const expected = JSON.parse(await Deno.readTextFile(SNAPSHOT));
    assertEquals(
      actual,
      expected,
      "tools/list changed: review the diff, then refresh the snapshot",
    );
  });
}

Deno.test("tools/list names the --shell in the shell tool and stays within the limit (PowerShell, confined: the longest texts)", async () => {
  const cases = [
    { args: ["--shell", "powershell", "--allow", REPO_ROOT], label: "with PowerShell in" },
    { args: ["--shell", "cmd"], label: "with cmd.exe in" },
  ];
  for (const { args, label } of cases) {
    await using server = await startServer({ client: "v2", args });
    const { tools } = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const shell = tools.find((t: any) => t.name === "shell");
    assert(shell.description.includes(label), shell.description);
    const command = shell.inputSchema.properties.command.description;
    if (args[1] === "powershell") {
      assertEquals(command, "Run as powershell -Command (no &&).");
      assert(shell.description.includes("NOT CONFINED"), shell.description);
    } else {
      assertEquals(command, "Run as cmd.exe /d /s /c; pipes, && and redirections work.");
    }
    assertEquals(
      shell.inputSchema.properties.cwd.description,
      "Directory to run in (default: the working directory); ssh://host/dir runs it there with " +
        "bash.",
    );
    const bytes = new TextEncoder().encode(JSON.stringify(tools)).length;
    // deno-lint-ignore no-console
    console.log(`tools/list (${args.join(" ")}): ${bytes} bytes`);
    assert(bytes <= MAX_TOOLS_LIST_BYTES, `tools/list with ${args.join(" ")} is ${bytes} bytes`);
  }
});

Deno.test("the jobs tool's bytes parameter states the defaults the server uses", async () => {
  const cases = [
    { args: [], says: "(default 4096; a passing run: last 10 lines)." },
    { args: ["--tail-bytes", "2000", "--passing-tail-lines", "0"], says: "(default 2000)." },
  ];
  for (const { args, says } of cases) {
    await using server = await startServer({ client: "v2", args });
    const { tools } = await server.client.listTools();
    // deno-lint-ignore no-explicit-any
    const jobs = tools.find((t: any) => t.name === "jobs");
    const text: string = jobs.inputSchema.properties.bytes.description;
    assert(text.endsWith(says), `${args.join(" ")}: ${text}`);
  }
});
