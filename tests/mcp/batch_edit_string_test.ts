// batch_edit through the real server (v1 and v2 SDK clients over stdio): operations sent as a JSON
// string are taken as a list, one operation or {"operations": [...]}.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { CLIENT_KINDS, startServer, tempDir, writeTree } from "../_harness.ts";

for (const kind of CLIENT_KINDS) {
  Deno.test(`batch_edit takes operations encoded as a JSON string: a list, one operation, or {"operations":[...]} (${kind} client)`, async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "one\n" });
    await using server = await startServer({ client: kind, args: ["--path", dir.path] });
    const forms = [
      JSON.stringify([{ op: "insert", anchor: -1, content: "two" }]),
      JSON.stringify({ op: "insert", anchor: -1, content: "three" }),
      JSON.stringify({ operations: [{ op: "insert", anchor: -1, content: "four" }] }),
    ];
    for (const operations of forms) {
      const r = await server.call("batch_edit", { path: "a.txt", operations });
      assertEquals(r.isError, false, `${operations}: ${r.text}`);
    }
    assertEquals(await Deno.readTextFile(`${dir.path}/a.txt`), "one\ntwo\nthree\nfour\n");
    const bad = await server.call("batch_edit", { path: "a.txt", operations: "[{op:insert}]" });
    assert(bad.isError);
    assertStringIncludes(bad.text, "not a JSON list of operations");
    // The operations argument's JSON, named as the model sent it.
    assertStringIncludes(
      bad.text,
      'Next: operations (a string) must be JSON: a list, e.g. [{"op":"insert","anchor":-1,',
    );
  });
}
