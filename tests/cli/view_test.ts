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
    assertEquals(cli.code, 0, cli.stderr);
    assertEquals(cli.stdout, `${tool.text}\n`, args.join(" "));
  }
});

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
