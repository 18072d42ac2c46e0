// Next steps go through data (lib/core/next_step.ts): a hint or result that names a call builds a
// step, so the CLI can print it as an `anchorfs …` command and the MCP adapter as a tool call. A
// tool call written by hand as JSON text would reach people in MCP syntax. The MCP adapter may
// render a step as a tool call (toolCallSyntax), but it does not write one by hand either.

import { assert, assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";

/** Files allowed to write tool calls as text, each with its reason. */
const EXEMPT: Record<string, string> = {
  "lib/core/shell/policy/policy_messages.ts": "the shell policy's refusals reach only the MCP " +
    "shell tool (the CLI has no shell command), and they teach the tools' argument shapes",
  "lib/mcp/stdio/stdio_wire.ts":
    "the oversized-message error goes to an MCP client only, and shows " +
    'argument shapes with placeholders ("path":...) that no step can hold',
  "lib/mcp/command.ts": "`anchorfs mcp --help` tells a person which call a model makes to read " +
    "a job's whole log (anchorfs://jobs/ID has no command-line form)",
};

/** The folders scanned: every layer that writes text a model or a person reads. */
const SCANNED = ["lib/core", "lib/ops", "lib/backends", "lib/mcp", "lib/cli"];

/** A tool call written by hand: `view {"path"…`, or `view ${JSON.stringify(…)}` in a template. */
const TOOL_CALL_TEXT = new RegExp(
  String.raw`\b(?:view|text_editor|batch_edit|extract_lines|shell|workdir|jobs) ` +
    String.raw`(?:\{\s*\\?"|\$\{\s*JSON\.stringify\()`,
  "g",
);

/** Lines of `text` (comments removed) that write a tool call by hand, as "path:line: text". */
function handWrittenCalls(path: string, text: string): string[] {
  return linesMatching(path, text, TOOL_CALL_TEXT);
}

/**
 * What writes a step in some syntax: the syntax type, the renderer, a syntax itself, or a
 * session's (`session.steps`). The ops return guides; only the adapters (lib/mcp, lib/cli) and
 * start-up code that knows its reader choose a syntax.
 */
const STEP_RENDERING = /\b(?:StepSyntax|renderGuide|toolCallSyntax|cliStepSyntax)\b|\.steps\s*\(/g;

/**
 * A command line of the CLI written by hand (`anchorfs jobs wait ${id}`): the CLI writes steps as
 * command lines in one place (lib/cli/step_command.ts), so a hint written this way would reach a
 * model in CLI syntax, or miss an option the CLI renderer adds (`--state-dir`). `anchorfs mcp`
 * flags are not steps (nothing runs them as a next call), so they may be named.
 */
const COMMAND_LINE_TEXT = /\banchorfs (?:view|edit|jobs|workdir)\b/g;

/** Files allowed to write `anchorfs …` command lines as text, each with its reason. */
const COMMAND_LINE_WRITERS: Record<string, string> = {
  "lib/cli/step_command.ts": "the CLI's renderer: it writes every step as a command line",
};

/**
 * A subcommand's --help text (`usage: \`…\`` or `const MCP_USAGE = \`…\``) is its manual: its
 * examples are checked by the docs test, not steps. Blanked out, keeping line numbers.
 */
function withoutUsageTexts(text: string): string {
  return text.replace(
    /(\busage:\s*|\b[A-Z_]*USAGE\s*=\s*)`(?:\\[\s\S]|[^`\\])*`/g,
    (m) => m.replace(/[^\n]/g, " "),
  );
}

/** Lines of `text` (comments and --help texts removed) that write an anchorfs command line. */
function handWrittenCommandLines(path: string, text: string): string[] {
  return linesMatching(path, withoutUsageTexts(text), COMMAND_LINE_TEXT);
}

/** Lines of `text` (comments removed) that match `pattern`, as "path:line: text". */
function linesMatching(path: string, text: string, pattern: RegExp): string[] {
  // Comments may show the syntax (they document it); blank them out, keeping line numbers.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  for (const m of code.matchAll(pattern)) {
    const line = code.slice(0, m.index).split("\n").length;
    found.push(`${path}:${line}: ${text.split("\n")[line - 1]!.trim()}`);
  }
  return found;
}

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await sources(rel));
    else if (entry.isFile && entry.name.endsWith(".ts")) out.push(rel);
  }
  return out.sort();
}

Deno.test(`no hint, result or description text in ${SCANNED.join(", ")} writes a tool call by hand`, async () => {
  const found: string[] = [];
  for (const dir of SCANNED) {
    for (const path of await sources(dir)) {
      if (path in EXEMPT) continue;
      found.push(...handWrittenCalls(path, await Deno.readTextFile(`${REPO_ROOT}/${path}`)));
    }
  }
  assertEquals(found, [], "build these with step(...) from lib/core/next_step.ts");
  // An exemption names a file that exists (a move must carry it along, not drop the rule).
  for (const path in EXEMPT) assert((await Deno.stat(`${REPO_ROOT}/${path}`)).isFile, path);
});

Deno.test("the tool-call scanner finds quoted, templated and multi-line calls (so the rule can fail)", () => {
  const sample = [
    `hint: 'view {"path":"."} lists it',`,
    'hint: `Read it with jobs {"action":"read","id":"${id}"}`,',
    "hint: `Use view ${",
    "  JSON.stringify({ path })",
    "} first`,",
    '// a comment may show view {"path":"x"}',
    '/** and so may a doc: shell {"command":"ls"} */',
    'hint: guide`${step("view", { path })} lists it`,',
  ].join("\n");
  const found = handWrittenCalls("sample.ts", sample);
  assertEquals(found.map((f) => f.split(": ")[0]), ["sample.ts:1", "sample.ts:2", "sample.ts:3"]);
  for (const [path, why] of Object.entries(EXEMPT)) assert(why.length > 40, `${path}: say why`);
});

Deno.test(`no text in ${SCANNED.join(", ")} writes an anchorfs command line by hand (but --help texts)`, async () => {
  const found: string[] = [];
  for (const dir of SCANNED) {
    for (const path of await sources(dir)) {
      if (path in COMMAND_LINE_WRITERS) continue;
      found.push(
        ...handWrittenCommandLines(path, await Deno.readTextFile(`${REPO_ROOT}/${path}`)),
      );
    }
  }
  assertEquals(found, [], "build these with step(...); the CLI renders them (step_command.ts)");
  for (const path in COMMAND_LINE_WRITERS) {
    assert((await Deno.stat(`${REPO_ROOT}/${path}`)).isFile, path);
  }
});

Deno.test("the command-line scanner finds hints and templates, not --help texts or comments (so the rule can fail)", () => {
  const sample = [
    'hint: "List the jobs with `anchorfs jobs`; pass --state-dir",',
    "terminal.err(`wait again with: anchorfs jobs wait ${id}\\n`);",
    "const MCP_USAGE = `Usage:",
    "  anchorfs jobs wait ID    Wait (\\`anchorfs jobs\\` lists)",
    "`;",
    "  usage: `Usage: anchorfs view PATH",
    "  anchorfs view src --max-depth 2`,",
    "// a comment may name anchorfs edit",
    'const server = "anchorfs mcp --path DIR";',
    'message: "see anchorfs view --help" + `${"x"}`,',
  ].join("\n");
  const found = handWrittenCommandLines("sample.ts", sample);
  assertEquals(found.map((f) => f.split(": ")[0]), ["sample.ts:1", "sample.ts:2", "sample.ts:10"]);
});

Deno.test("no lib/ops file writes a step in a syntax: results and errors keep them as data", async () => {
  const found: string[] = [];
  for (const path of await sources("lib/ops")) {
    found.push(
      ...linesMatching(path, await Deno.readTextFile(`${REPO_ROOT}/${path}`), STEP_RENDERING),
    );
  }
  assertEquals(found, [], "return a Guide (guide`...${step(...)}...`); the adapters render it");
});

Deno.test("the step-rendering scanner finds a syntax, a renderer and a session's steps (so the rule can fail)", () => {
  const sample = [
    'import { renderGuide, step } from "../core/next_step.ts";',
    'const text = `Read it: ${session.steps(step("view", { path }))}`;',
    "function hint(steps: StepSyntax) {}",
    "const call = toolCallSyntax(s);",
    "// a comment may name renderGuide",
    'const g = guide`Read it: ${step("view", { path })}`;',
  ].join("\n");
  const found = linesMatching("sample.ts", sample, STEP_RENDERING);
  assertEquals([...new Set(found.map((f) => f.split(": ")[0]))], [
    "sample.ts:1",
    "sample.ts:2",
    "sample.ts:3",
    "sample.ts:4",
  ]);
});
