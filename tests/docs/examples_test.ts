// The examples in README.md and docs/ are real: every `TOOL {json}` call validates against the
// input schema the running server lists (unknown arguments refused, line ids well-formed), every
// `anchorfs ...` command line gets through the CLI's own argument parsing (parse only: nothing
// runs), and every MCP client configuration parses as its client reads it, with that client's keys
// and an `anchorfs mcp` command line that parses.

import { Ajv } from "ajv";
import { assertEquals } from "../_assert.ts";
import { startServer } from "../_harness.ts";
import { CLI_COMMANDS } from "../../lib/cli/commands.ts";
import { parseMcpArgs } from "../../lib/mcp/command.ts";
import { parseHttpFlags } from "../../lib/mcp/http/http_options.ts";
import { parseByteCount } from "../../lib/ops/read_limits.ts";
import { codeSamples, readDocs } from "./_markdown.ts";
import {
  type ClientConfig,
  configProblems,
  fencedConfigs,
  isClientConfig,
  parseConfig,
} from "./_client_configs.ts";
import {
  type CommandExample,
  commandExamples,
  isElided,
  shellWords,
  TOOL_NAMES,
  toolExamples,
} from "./_examples.ts";

/** Arguments that take a line id: a string there must read `N:hh`. */
const ID_ARGUMENTS = new Set(["start", "end", "anchor", "position"]);

/** The schema with every object closed: the server notes unknown arguments, the docs show none. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if (out.type === "object" && out.properties) out.additionalProperties = false;
  return out;
}

function badIds(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => badIds(v, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) =>
    ID_ARGUMENTS.has(k) && typeof v === "string" && !/^(-?\d+|\d+:[0-9a-f]{2})$/.test(v)
      ? [`${path}${k} ${JSON.stringify(v)} is not a line id (N:hh) or a number`]
      : badIds(v, `${path}${k}.`)
  );
}

Deno.test("every TOOL {json} example in README.md and docs/ fits the tool's input schema", async () => {
  let tools: { name: string; inputSchema: unknown }[];
  {
    await using server = await startServer({ client: "v2" });
    tools = (await server.client.listTools()).tools;
  }
  assertEquals(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = new Map(
    tools.map((t) => [t.name, ajv.compile(closed(t.inputSchema) as object)]),
  );
  const failures: string[] = [];
  let checked = 0;
  for (const doc of await readDocs()) {
    for (const example of toolExamples(codeSamples(doc.text))) {
      const where = `${doc.path}:${example.line}: ${example.tool} ${example.json}`;
      let args: unknown;
      try {
        args = JSON.parse(example.json);
      } catch (e) {
        if (!isElided(example.json)) failures.push(`${where}\n  not JSON: ${(e as Error).message}`);
        continue;
      }
      checked++;
      const validate = validators.get(example.tool)!;
      if (!validate(args)) {
        const errors = validate.errors!.map((e) =>
          `${e.instancePath || "/"} ${e.message}${
            e.params && "additionalProperty" in e.params ? `: ${e.params.additionalProperty}` : ""
          }`
        );
        failures.push(`${where}\n  ${errors.join("\n  ")}`);
      }
      for (const bad of badIds(args)) failures.push(`${where}\n  ${bad}`);
    }
  }
  assertEquals(failures, []);
  assertEquals(checked > 40, true, `only ${checked} tool examples found: is the scan broken?`);
});

/** Words the docs use as placeholders for numbers (`--bytes N`, `--timeout S`). */
const NUMBER_PLACEHOLDERS = new Set(["N", "S", "SECONDS"]);

/**
 * Parses one example the way `anchorfs` would: the top-level options, then `mcp` (its flags and
 * the HTTP flags' values) or a subcommand's parse(). Returns the problem, or undefined.
 */
function parseProblem(example: CommandExample): string | undefined {
  let args = example.args.map((a) => NUMBER_PLACEHOLDERS.has(a) ? "1" : a);
  try {
    if (args[0] === "--max-file-bytes") {
      parseByteCount("--max-file-bytes", args[1] ?? "");
      args = args.slice(2);
    }
    const [name, ...rest] = args;
    if (name === undefined) return "no command";
    if (["-h", "--help", "help", "-V", "--version", "version"].includes(name)) return undefined;
    if (name === "mcp") {
      parseHttpFlags(parseMcpArgs(rest));
      return undefined;
    }
    const command = CLI_COMMANDS.find((c) => c.name === name);
    if (!command) return `unknown command ${JSON.stringify(name)}`;
    if (rest.includes("--help") || rest.includes("-h")) return undefined;
    command.parse(rest);
    return undefined;
  } catch (e) {
    return (e as Error).message.split("\n")[0];
  }
}

/**
 * Prose names a subcommand or a mode in inline code (`anchorfs jobs tail`, `anchorfs edit
 * --batch`) without a whole command line: only its names are checked there, not what it lacks.
 */
function isMention(example: CommandExample, fenced: boolean): boolean {
  if (fenced) return false;
  return example.args.length <= 1 ||
    example.args.slice(1).every((a) =>
      a.startsWith("-") || ["list", "ls", "tail", "wait", "kill"].includes(a)
    );
}

const MISSING = /needs a|needs --|argument missing|needs a value/;

Deno.test("every `anchorfs ...` command line in README.md and docs/ parses (nothing runs)", async () => {
  const failures: string[] = [];
  let checked = 0;
  for (const doc of await readDocs()) {
    for (const sample of codeSamples(doc.text)) {
      for (const example of commandExamples([sample])) {
        // A placeholder for the command itself (`anchorfs <command> --help`) or the bare name.
        if (/<\w+>/.test(example.text) || example.args.length === 0) continue;
        checked++;
        const problem = parseProblem(example);
        if (problem === undefined) continue;
        if (isMention(example, sample.fenced) && MISSING.test(problem)) continue;
        failures.push(`${doc.path}:${example.line}: ${example.text}\n  ${problem}`);
      }
    }
  }
  assertEquals(failures, []);
  assertEquals(checked > 40, true, `only ${checked} command lines found: is the scan broken?`);
});

Deno.test("the example checks can fail: a wrong option, a wrong argument, an unknown tool argument", () => {
  const line = (text: string) => commandExamples([{ text, line: 1, fenced: true }])[0]!;
  assertEquals(parseProblem(line("anchorfs view src --start 10")), undefined);
  assertEquals(parseProblem(line("anchorfs view src --from 10"))?.includes("--from"), true);
  assertEquals(parseProblem(line("anchorfs jobs wait 1-2 --timeout soon"))?.includes("soon"), true);
  assertEquals(parseProblem(line("anchorfs mcp --path . --nope")) !== undefined, true);
  assertEquals(parseProblem(line("anchorfs mcp --http nowhere")) !== undefined, true);
  assertEquals(line("echo x | anchorfs edit f --old-file - --new 'a b'   # a comment").args, [
    "edit",
    "f",
    "--old-file",
    "-",
    "--new",
    "a b",
  ]);
  assertEquals(
    line("anchorfs view PATH [--start N|N:hh] [--allow DIR]...").args,
    ["view", "PATH", "--start", "N", "--allow", "DIR"],
  );
  assertEquals(shellWords(`a "b \\" c" 'd' e\\ f | g`), ["a", 'b " c', "d", "e f"]);
  const tool = toolExamples([{ text: 'view {"path":"a","strat":1}', line: 1, fenced: false }]);
  assertEquals(tool.map((t) => t.json), ['{"path":"a","strat":1}']);
  const ajv = new Ajv({ strict: false });
  const validate = ajv.compile(closed({
    type: "object",
    properties: { path: { type: "string" }, start: { type: "number" } },
  }) as object);
  assertEquals(validate(JSON.parse(tool[0]!.json)), false);
  assertEquals(badIds({ start: "12" }), []);
  assertEquals(badIds({ operations: [{ anchor: "12:zz" }] }).length, 1);
});

/** The words a client hands to anchorfs, checked like a command line: `mcp` and its flags. */
function mcpProblem(words: string[]): string | undefined {
  if (words[0] !== "mcp") return `a client runs \`anchorfs mcp\`, not \`anchorfs ${words[0]}\``;
  return parseProblem({ args: words, text: `anchorfs ${words.join(" ")}`, line: 0 });
}

/** What is wrong with one fenced block that configures (or should configure) a client. */
function clientConfigProblems(config: ClientConfig): string[] {
  let parsed: unknown;
  try {
    parsed = parseConfig(config);
  } catch (e) {
    return config.clients.length > 0 ? [`not ${config.lang}: ${(e as Error).message}`] : [];
  }
  if (!isClientConfig(parsed)) return [];
  if (config.clients.length === 0) return ["no client named in bold above it (**VS Code**, ...)"];
  return config.clients.flatMap((client) =>
    configProblems(client, config, parsed, mcpProblem).map((p) => `${client}: ${p}`)
  );
}

Deno.test("every MCP client configuration in README.md and docs/ parses as its client reads it, with its keys", async () => {
  const failures: string[] = [];
  const clients = new Set<string>();
  let checked = 0;
  for (const doc of await readDocs()) {
    for (const config of fencedConfigs(doc.text)) {
      const problems = clientConfigProblems(config);
      failures.push(...problems.map((p) => `${doc.path}:${config.line}: ${p}`));
      if (config.clients.length > 0 && problems.length === 0) {
        checked++;
        config.clients.forEach((c) => clients.add(c));
      }
    }
  }
  assertEquals(failures, []);
  assertEquals(
    [...clients].sort(),
    ["Claude Desktop", "Cline", "Codex", "Cursor", "Gemini CLI", "VS Code", "Windsurf", "Zed"],
  );
  assertEquals(checked >= 8, true, `only ${checked} client configurations found`);
});

Deno.test("the client configuration check can fail: a wrong key, a wrong file format, a wrong command", () => {
  const check = (markdown: string) => fencedConfigs(markdown).flatMap(clientConfigProblems);
  const fails = (markdown: string) => assertEquals(check(markdown).length > 0, true, markdown);
  const block = (lead: string, lang: string, body: string) =>
    `${lead}\n\n\`\`\`${lang}\n${body}\n\`\`\`\n`;
  const stdio = (extra = "") =>
    `"anchorfs": { ${extra}"command": "anchorfs", "args": ["mcp", "--path", "/p"] }`;
  assertEquals(
    check(block("**VS Code**:", "json", `{ "servers": { ${stdio('"type": "stdio", ')} } }`)),
    [],
  );
  // VS Code reads "servers", not "mcpServers", and wants the entry's type.
  fails(block("**VS Code**:", "json", `{ "mcpServers": { ${stdio()} } }`));
  fails(block("**VS Code**:", "json", `{ "servers": { ${stdio()} } }`));
  fails(block("**Zed**:", "json", `{ "context_servers": { ${stdio()} } }`));
  fails(block("**Codex**:", "json", `{ "mcp_servers": { ${stdio()} } }`));
  assertEquals(
    check(
      block("**Codex**:", "toml", '[mcp_servers.anchorfs]\ncommand = "anchorfs"\nargs = ["mcp"]'),
    ),
    [],
  );
  fails(block("**Codex**:", "toml", '[mcp_servers.anchorfs]\nurl = "http://h:1/mcp"\nheaders = 1'));
  // Windsurf's remote key is serverUrl; npx needs -y; an unknown anchorfs flag; no client named.
  fails(block("**Windsurf**:", "json", '{ "mcpServers": { "a": { "url": "http://h:1/mcp" } } }'));
  const npx = '{ "mcpServers": { "a": { "command": "npx", "args": ["anchorfs", "mcp"] } } }';
  fails(block("**Cline**:", "json", npx));
  const flag =
    '{ "mcpServers": { "a": { "command": "anchorfs", "args": ["mcp", "--pth", "x"] } } }';
  fails(block("**Cursor**:", "json", flag));
  fails(block("Some client:", "json", `{ "mcpServers": { ${stdio()} } }`));
  fails(block("**Cursor**:", "json", "{ not json"));
  const windows =
    '{ "mcpServers": { "a": { "command": "cmd", "args": ["/c", "npx", "-y", "anchorfs", "mcp"] } } }';
  assertEquals(check(block("**Claude Desktop**:", "json", windows)), []);
});
