// Next steps rendered as command lines for a person (lib/cli/step_command.ts): every step
// argument has a CLI form, and the printed lines parse back or run (a batch_edit through bash).

import { assert, assertEquals } from "../_assert.ts";
import { MAIN_TS, tempDir, writeTree } from "../_harness.ts";
import {
  argExample,
  type NextStep,
  step,
  toolCallSyntax,
  type ToolName,
} from "../../lib/core/next_step.ts";
import { parseCommandLine } from "../../lib/core/shell/parse/mod.ts";
import {
  type ArgForm,
  CLI_ARG_FORMS,
  cliStepSyntax,
  cliSyntax,
  commandLineOf,
} from "../../lib/cli/step_command.ts";
import { parseCommandArgs } from "../../lib/cli/command.ts";
import { CLI_COMMANDS } from "../../lib/cli/commands.ts";
import { VIEW_OPTIONS } from "../../lib/cli/view.ts";
import { EDIT_OPTIONS } from "../../lib/cli/edit.ts";
import { JOBS_OPTIONS } from "../../lib/cli/jobs.ts";
import { formatLineId } from "../../lib/core/edit/line_id.ts";

/** The options of the subcommand each tool's flags belong to. */
const OPTIONS_OF: Partial<Record<ToolName, Record<string, { type: string }>>> = {
  view: VIEW_OPTIONS,
  text_editor: EDIT_OPTIONS,
  jobs: JOBS_OPTIONS,
};

/** The words of a one-command line after the shell's quote removal (asserts it is one command). */
function wordsOf(line: string): string[] {
  const parsed = parseCommandLine(line);
  assert(parsed.ok, `not shell syntax: ${line}`);
  assertEquals(parsed.commands.length, 1, line);
  return parsed.commands[0]!.words.map((w) => w.value);
}

Deno.test("every argument a next step may carry has a command-line form or a stated fallback", () => {
  for (
    const [tool, forms] of Object.entries(CLI_ARG_FORMS) as [string, Record<string, ArgForm>][]
  ) {
    for (const [arg, form] of Object.entries(forms)) {
      const where = `${tool}.${arg}`;
      if (form.kind === "fallback") assert(form.why.length > 10, `${where}: say why`);
      if (form.kind === "selects") assert(form.forms.length > 10, `${where}: name the forms`);
      if (form.kind === "input") assert(form.how.length > 10, `${where}: say how`);
      if (form.kind !== "flag") continue;
      const options = OPTIONS_OF[tool as ToolName];
      assert(options, `${where}: flags of a tool without a subcommand`);
      const name = form.flag.replace(/^--/, "");
      assert(name in options, `${where}: ${form.flag} is not an option of its subcommand`);
    }
  }
});

Deno.test("view steps become anchorfs view command lines the CLI parser reads back", () => {
  const s = step("view", {
    path: "my dir/a b.ts",
    start: -50,
    end: "12:a3",
    content: "it's (x)",
    regex: true,
    context: 2,
    pattern: "*.ts|!*_test.ts",
    include_hidden: true,
    max_depth: 3,
    full: true,
  });
  const words = wordsOf(commandLineOf(s)!);
  assertEquals(words.slice(0, 2), ["anchorfs", "view"]);
  const { values, positionals } = parseCommandArgs(words.slice(2), VIEW_OPTIONS);
  assertEquals(positionals, ["my dir/a b.ts"]);
  assertEquals({ ...values }, {
    start: "-50",
    end: "12:a3",
    content: "it's (x)",
    regex: true,
    context: "2",
    pattern: "*.ts|!*_test.ts",
    "include-hidden": true,
    "max-depth": "3",
  });
  assertEquals(
    commandLineOf(step("view", { path: "x", start: 1, end: 1 })),
    "anchorfs view x --start 1 --end 1",
  );
  // A path or a value that starts with "-" is not read as an option.
  const dashed = wordsOf(commandLineOf(step("view", { path: "-n.txt", content: "-v" }))!);
  const back = parseCommandArgs(dashed.slice(2), VIEW_OPTIONS);
  assertEquals(back.positionals, ["./-n.txt"]);
  assertEquals(back.values.content, "-v");
});

Deno.test("edit, jobs, shell and workdir steps become the commands a person runs", () => {
  const cases: [NextStep, string | undefined][] = [
    [
      step("text_editor", {
        command: "str_replace",
        path: "a.ts",
        old_text: "old line",
        new_text: "",
        replace_all: true,
      }),
      "anchorfs edit a.ts --old 'old line' --new '' --replace-all",
    ],
    [step("text_editor", { command: "delete", path: "-x.txt" }), "rm -- -x.txt"],
    [step("text_editor", { command: "undo_edit", path: "a.ts" }), undefined],
    [step("text_editor", { command: "create", path: "a.ts", file_text: "x\n" }), undefined],
    [step("jobs", { action: "list" }), "anchorfs jobs"],
    [
      step("jobs", { action: "read", id: "12-3", bytes: 100000 }),
      "anchorfs jobs tail 12-3 --bytes 100000",
    ],
    [step("jobs", { action: "wait", id: "12-3" }), "anchorfs jobs wait 12-3"],
    [step("jobs", { action: "kill", id: "12-3" }), "anchorfs jobs kill 12-3"],
    [step("shell", { command: "grep -n x 'a b'" }), "grep -n x 'a b'"],
    [step("shell", { command: "make", cwd: "/my dir" }), "cd '/my dir' && make"],
    [step("workdir", { action: "set", path: "src dir" }), "cd 'src dir'"],
    [step("workdir", { action: "get" }), "pwd"],
    [step("workdir", { action: "set", path: "ssh://box/srv" }), undefined],
    [step("text_editor", { command: "delete", path: "ssh://box/a" }), undefined],
    [step("workdir", { action: "reset" }), undefined],
    [
      step("extract_lines", { from_path: "a", start: 1, end: 2, to_path: "b", position: -1 }),
      undefined,
    ],
  ];
  for (const [s, line] of cases) {
    assertEquals(commandLineOf(s), line, JSON.stringify(s));
    // A step without a command line is shown as the tool call; one with it, in backticks.
    assertEquals(cliStepSyntax(s), line === undefined ? toolCallSyntax(s) : `\`${line}\``);
  }
  const edit = wordsOf(commandLineOf(cases[0]![0])!);
  const { values, positionals } = parseCommandArgs(edit.slice(2), EDIT_OPTIONS);
  assertEquals(positionals, ["a.ts"]);
  assertEquals({ ...values }, { old: "old line", new: "", "replace-all": true });
  const tail = wordsOf(commandLineOf(cases[5]![0])!);
  assertEquals(parseCommandArgs(tail.slice(2), JOBS_OPTIONS).values.bytes, "100000");
});

Deno.test("after anchorfs jobs --state-dir DIR, jobs steps name the same state dir", () => {
  for (const stateDir of ["/srv/my state", "-odd"]) {
    const syntax = cliSyntax({ stateDir });
    for (
      const s of [
        step("jobs", { action: "list" }),
        step("jobs", { action: "read", id: "12-3", bytes: 10 }),
        step("jobs", { action: "wait", id: "12-3" }),
      ]
    ) {
      const words = wordsOf(syntax(s).slice(1, -1));
      assertEquals(words.slice(0, 2), ["anchorfs", "jobs"]);
      const { values } = parseCommandArgs(words.slice(2), JOBS_OPTIONS);
      assertEquals(values["state-dir"], stateDir, syntax(s));
    }
    // Other steps are as without it.
    const view = step("view", { path: "a.txt" });
    assertEquals(syntax(view), cliStepSyntax(view));
  }
});

Deno.test("a batch_edit step run by bash as printed applies the same operations", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "it's a.txt": "one\ntwo\n" });
  const line = commandLineOf(step("batch_edit", {
    path: "it's a.txt",
    operations: [
      { op: "replace", start: formatLineId(2, "two"), content: "2 \\n 'quoted' $HOME" },
      { op: "insert", anchor: -1, content: "three" },
    ],
    allow_repeat: true,
  }))!;
  // `anchorfs` as a shell function, so the line runs exactly as printed.
  const script = `anchorfs() { "${Deno.execPath()}" run -A --quiet "${MAIN_TS}" "$@"; }\n${line}`;
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd: dir.path,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assertEquals(
    await Deno.readTextFile(`${dir.path}/it's a.txt`),
    "one\n2 \\n 'quoted' $HOME\nthree\n",
  );
});

Deno.test("every anchorfs command a step renders is accepted by that subcommand's own parser", () => {
  const steps: NextStep[] = [
    step("view", { path: "-a b", start: -5, end: "3:0f", content: "-x", regex: true, context: 1 }),
    step("view", { path: ".", pattern: "*.ts", include_hidden: true, max_depth: 2, full: true }),
    step("text_editor", { command: "str_replace", path: "a", old_text: "-o", new_text: "n" }),
    step("batch_edit", { path: "a", operations: [{ op: "insert", anchor: -1, content: "x" }] }),
    step("jobs", { action: "list" }),
    step("jobs", { action: "read", id: "1-2", bytes: 5 }),
    step("jobs", { action: "wait", id: "1-2" }),
    step("jobs", { action: "kill", id: "1-2" }),
  ];
  for (const s of steps) {
    const parsed = parseCommandLine(commandLineOf(s)!);
    assert(parsed.ok, JSON.stringify(s));
    // The anchorfs command is the last of a pipeline (batch_edit feeds it on stdin).
    const words = parsed.commands[parsed.commands.length - 1]!.words.map((w) => w.value);
    assertEquals(words[0], "anchorfs");
    const command = CLI_COMMANDS.find((c) => c.name === words[1]);
    assert(command, `no subcommand ${words[1]}`);
    command.parse(words.slice(2)); // throws UsageError on anything it would refuse
  }
});

Deno.test("argument examples become the flags a person types, else the JSON fragment", () => {
  assertEquals(cliStepSyntax(argExample("view", { start: 10 })), "`--start 10`");
  assertEquals(cliStepSyntax(argExample("view", { end: -1 })), "`--end -1`");
  assertEquals(cliStepSyntax(argExample("view", { max_depth: 2 })), "`--max-depth 2`");
  assertEquals(cliStepSyntax(argExample("view", { include_hidden: true })), "`--include-hidden`");
  assertEquals(
    cliStepSyntax(argExample("view", { path: "a b", pattern: "*.ts" })),
    "`'a b' --pattern '*.ts'`",
  );
  // No flag: `full` has none (every CLI view is whole), so the fragment is shown.
  assertEquals(cliStepSyntax(argExample("view", { full: true })), '{"full":true}');
  assertEquals(cliStepSyntax(argExample("view", { regex: false })), '{"regex":false}');
});
