// Arguments of the wrong type get messages that say what was expected and what arrived; null
// (which models send for "not set") is answered with "leave it out", or "it is required".

import { assert, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir, writeTree } from "../_harness.ts";

for (const kind of CLIENT_KINDS) {
  Deno.test(`wrong argument types name the expected type, and null says to leave it out (${kind} client)`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "alpha\n" });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "view",
        { path: "a.txt", start: null },
        "start is null; no argument accepts null: leave start out",
      ],
      [
        "view",
        { path: "a.txt", end: true },
        'end must be a line number (e.g. 10 or -1) or a line id string "N:hh"',
      ],
      ["view", { path: null }, "path is null, but it is required"],
      [
        "view",
        { path: ".", include_hidden: "yes" },
        'include_hidden must be true or false; got string "yes"',
      ],
      ["view", { path: ".", max_depth: null }, "leave max_depth out"],
      [
        "text_editor",
        {
          command: "str_replace",
          path: "a.txt",
          old_text: "alpha",
          new_text: "b",
          replace_all: "yes",
        },
        'replace_all must be true or false; got string "yes"',
      ],
      ["jobs", { action: "read", id: null }, "leave id out"],
      [
        "jobs",
        { action: "frob" },
        'action must be "list", "read", "wait" or "kill", e.g. "wait" with an id; got string "frob"',
      ],
      ["workdir", { action: "cd" }, 'action must be "get", "set" (with a path) or "reset"; got'],
      [
        "shell",
        { command: ["ls"] },
        'command must be a command line string, e.g. "make test"; got a list ["ls"]',
      ],
      [
        "extract_lines",
        { from_path: "a.txt", start: null, to_path: "b.txt", position: -1 },
        "start is null, but it is required",
      ],
    ];
    for (const [tool, args, expected] of cases) {
      const r = await server.call(tool, args);
      assert(r.isError, `${tool} ${JSON.stringify(args)}`);
      assertStringIncludes(r.text, expected, `${tool} ${JSON.stringify(args)}`);
      assertNotIncludes(r.text, "Invalid input");
    }
    // Nothing was written by the refused str_replace.
    assertStringIncludes(await Deno.readTextFile(`${dir.path}/a.txt`), "alpha");
  });
}
