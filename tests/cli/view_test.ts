// `anchorfs view` prints exactly what the view tool returns (the real server beside the CLI), with
// hints as command lines, and grep's exit codes for content searches.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { runCliProcess, startServer, tempDir, writeTree } from "../_harness.ts";

Deno.test("anchorfs view prints exactly the text of the view tool", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    ".gitignore": "out/\n",
    "a.ts": "const a = 1;\nfoo();\n",
    "lib/b.ts": "foo(2);\n",
    "out/c.ts": "foo(3);\n",
  });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const cases: [string[], Record<string, unknown>][] = [
    [["a.ts", "--start", "2"], { path: "a.ts", start: 2 }],
    [["."], { path: "." }],
    [[".", "--pattern", "*.ts", "--max-depth", "1"], { path: ".", pattern: "*.ts", max_depth: 1 }],
    [[".", "--content", "foo(", "--context", "1"], { path: ".", content: "foo(", context: 1 }],
    [["a.ts|lib", "--content", "^FOO", "--regex"], {
      path: "a.ts|lib",
      content: "^FOO",
      regex: true,
    }],
  ];
  for (const [args, toolArgs] of cases) {
    const cli = await runCliProcess(["view", ...args], { cwd: dir.path });
    const tool = await server.call("view", toolArgs);
    // A search that matched nothing exits 1 (`^FOO` is case-sensitive).
    assertEquals(cli.code, args.includes("^FOO") ? 1 : 0, cli.stderr);
    // stdout is a pipe here: the notices after the output ([...] lines) come on stderr.
    assertEquals(asOneText(cli), `${tool.text}\n`, args.join(" "));
  }
});

/** What a terminal would have shown: stdout, then the notices that went to stderr. */
function asOneText(cli: { stdout: string; stderr: string }): string {
  return cli.stderr === "" ? cli.stdout : `${cli.stdout}\n${cli.stderr}`;
}

Deno.test("anchorfs view reports errors with a hint and exits non-zero", async () => {
  await using dir = await tempDir();
  const missing = await runCliProcess(["view", "nope.ts"], { cwd: dir.path });
  assertEquals(missing.code, 1);
  assertStringIncludes(missing.stderr, `error: No file or directory at "${dir.path}/nope.ts"`);
  // The next step is the command a person runs, not the MCP tool call.
  assertStringIncludes(missing.stderr, `hint: \`anchorfs view ${dir.path}\` to list what is there`);
  const usage = await runCliProcess(["view"], { cwd: dir.path });
  assertEquals(usage.code, 2);
  assertStringIncludes(usage.stderr, "view needs a PATH");
  const flag = await runCliProcess(["view", ".", "--bogus"], { cwd: dir.path });
  assertEquals(flag.code, 2);
});

Deno.test("a bad view argument's hint is the whole corrected call: a command line for a person, a tool call for a model", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "one\ntwo\n", "d/b.txt": "x\n" });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const cases: [string[], Record<string, unknown>, string, string][] = [
    [
      ["a.txt", "--start", "NaN"],
      { path: "a.txt", start: "NaN" },
      'e.g. view {"path":"a.txt","start":10} or view {"path":"a.txt","start":"10:a3"}.',
      "e.g. `anchorfs view a.txt --start 10` or `anchorfs view a.txt --start 10:a3`.",
    ],
    [
      ["a.txt", "--end", "x"],
      { path: "a.txt", end: "x" },
      'e.g. view {"path":"a.txt","end":-1} or view {"path":"a.txt","end":"10:a3"}.',
      "e.g. `anchorfs view a.txt --end -1` or `anchorfs view a.txt --end 10:a3`.",
    ],
    [
      ["d", "--max-depth", "deep"],
      { path: "d", max_depth: "deep" },
      'Pass a number, e.g. view {"path":"d","max_depth":2}.',
      "Pass a number, e.g. `anchorfs view d --max-depth 2`.",
    ],
    [
      ["d", "--content", "x", "--context", "wide"],
      { path: "d", content: "x", context: "wide" },
      'Pass a number, e.g. view {"path":"d","context":2}.',
      "Pass a number, e.g. `anchorfs view d --context 2`.",
    ],
  ];
  for (const [args, toolArgs, forModel, forPerson] of cases) {
    const tool = await server.call("view", toolArgs);
    assertEquals(tool.isError, true, args.join(" "));
    assertStringIncludes(tool.text, `Next: ${forModel}`);
    const cli = await runCliProcess(["view", ...args], { cwd: dir.path });
    assertEquals(cli.code, 2, cli.stderr);
    assertStringIncludes(cli.stderr, `hint: ${forPerson}`);
    // The usage error's message is the tool's, word for word.
    assertStringIncludes(cli.stderr, `error: ${tool.text.split("\n\n")[0]}`);
  }
});

Deno.test("a search or an empty listing suggests anchorfs commands to a person and tool calls to a model, the prose the same", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    ".gitignore": "out/\n",
    ".env": "y\n",
    "out/c.ts": "x\n",
    "lib/b.ts": "foo\n",
    "many.txt": "hit\n".repeat(45),
  });
  await using server = await startServer({ client: "v2", args: ["--path", dir.path] });
  const cases: [string[], Record<string, unknown>, [string, string][], number][] = [
    [["many.txt", "--content", "hit"], { path: "many.txt", content: "hit" }, [
      [
        'view {"path":"many.txt","start":41,"end":45}',
        "`anchorfs view many.txt --start 41 --end 45`",
      ],
    ], 0],
    [[".", "--content", "Needle"], { path: ".", content: "Needle" }, [
      ['view {"path":"out","content":"Needle"}', "`anchorfs view out --content Needle`"],
      [
        'view {"path":".","content":"Needle","include_hidden":true}',
        "`anchorfs view . --content Needle --include-hidden`",
      ],
      [
        'view {"path":".","content":"(?i)Needle","regex":true}',
        "`anchorfs view . --content '(?i)Needle' --regex`",
      ],
    ], 1], // no match: exit 1, as grep
    [["lib", "--pattern", "*.rs"], { path: "lib", pattern: "*.rs" }, [
      ['view {"path":"lib"}', "`anchorfs view lib`"],
    ], 0],
  ];
  for (const [args, toolArgs, steps, code] of cases) {
    const cli = await runCliProcess(["view", ...args], { cwd: dir.path });
    const tool = await server.call("view", toolArgs);
    assertEquals(cli.code, code, cli.stderr);
    let asCommands = tool.text;
    for (const [call, command] of steps) {
      assertStringIncludes(tool.text, call);
      asCommands = asCommands.replace(call, command);
    }
    assertEquals(asOneText(cli), `${asCommands}\n`, args.join(" "));
  }
});

Deno.test("view --content exits 0 on a match, 1 on none and 2 on an error, as grep does", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a.txt": "hello\n", "b.txt": "other\n" });
  const run = (...args: string[]) => runCliProcess(["view", ...args], { cwd: dir.path });
  const found = await run(".", "--content", "hello");
  assertEquals(found.code, 0, found.stderr);
  assertStringIncludes(found.stdout, "1:");
  const none = await run(".", "--content", "absent");
  assertEquals(none.code, 1, none.stderr);
  assertStringIncludes(none.stdout, 'No matches for literal "absent"');
  assertEquals(none.stderr, "");
  const missing = await run("a.txt|nope", "--content", "hello");
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "error: ");
  const badRegex = await run(".", "--content", "(", "--regex");
  assertEquals(badRegex.code, 2);
  // Not a search: a view that fails is 1, a listing (content "") is 0.
  assertEquals((await run("nope.txt")).code, 1);
  assertEquals((await run(".", "--content", "")).code, 0);
});
