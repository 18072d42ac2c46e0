// readBatchOperations: every shape batch_edit operations arrive in (from the tool and from
// `anchorfs edit --batch`) reads the same; what is not JSON says where it came from.

import { readBatchOperations } from "../../../lib/ops/edit/batch_operations.ts";
import { parseEditOps } from "../../../lib/core/edit/edit_ops.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";

const insert = { op: "insert", anchor: -1, content: "z" };

Deno.test("readBatchOperations reads a list, one operation, and the arguments object alike", () => {
  const shapes: [string, unknown][] = [
    ["a list", [insert]],
    ["one operation", insert],
    ["the arguments object", { path: "f.txt", operations: [insert] }],
    ["a list as JSON", JSON.stringify([insert])],
    ["one operation as JSON", JSON.stringify(insert)],
    ["the arguments object as JSON", JSON.stringify({ operations: [insert] })],
  ];
  for (const [what, given] of shapes) {
    const read = readBatchOperations(given, "operations");
    assertEquals(read, { operations: [insert], allowRepeat: false }, what);
    assertEquals(parseEditOps(read.operations).length, 1, what);
  }
});

Deno.test("readBatchOperations keeps allow_repeat of an arguments object, and only that", () => {
  assertEquals(
    readBatchOperations({ operations: [insert], allow_repeat: true }, "x").allowRepeat,
    true,
  );
  assertEquals(readBatchOperations({ ...insert, allow_repeat: true }, "x").allowRepeat, false);
});

Deno.test("readBatchOperations maps Octofs's operation names and line lists", () => {
  const read = readBatchOperations(
    [{ operation: "replace", start: "1:aa", content: ["a", "b"] }],
    "operations",
  );
  assertEquals(read.operations, [{ op: "replace", start: "1:aa", content: "a\nb" }]);
  assertEquals(
    readBatchOperations({ operation: "insert", anchor: 0, content: "x" }, "--batch").operations,
    [{ op: "insert", anchor: 0, content: "x" }],
  );
});

Deno.test("readBatchOperations names the source of text that is not JSON", async () => {
  const error = await assertRejects(() =>
    Promise.resolve().then(() => readBatchOperations("[{op:", '--batch "ops.json"'))
  );
  assert(error instanceof AnchorError);
  assertEquals(error.code, "INVALID_OPERATION");
  assertStringIncludes(error.message, '--batch "ops.json" is not a JSON list of operations: ');
  assertStringIncludes(error.hint ?? "", '{"op":"insert","anchor":-1');
});

Deno.test("readBatchOperations leaves other shapes for parseEditOps to refuse", () => {
  for (const given of [{}, 5, null, "[]", { operations: "x" }]) {
    const read = readBatchOperations(given, "operations");
    let message = "";
    try {
      parseEditOps(read.operations);
    } catch (e) {
      message = (e as Error).message;
    }
    assertStringIncludes(message, "non-empty list", JSON.stringify(given));
  }
});
