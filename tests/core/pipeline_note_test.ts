import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { maskedStatusNote } from "../../lib/core/pipeline_note.ts";

Deno.test("a successful pipeline into tail says the status before it was lost", () => {
  const note = maskedStatusNote("npm test 2>&1 | tail -50", 0)!;
  assertStringIncludes(note, "the exit status of what runs before `| tail -50` is lost");
  assertStringIncludes(note, "run the command without `| tail -50`");
  assertStringIncludes(
    maskedStatusNote("cd app && (make test) | /usr/bin/tail -n 20", 0)!,
    "`| /usr/bin/tail -n 20`",
  );
});

Deno.test("no note where the status is the program's own", () => {
  for (
    const [command, code] of [
      ["npm test 2>&1 | tail -50", 1], // a failure is already visible
      ["npm test", 0],
      ["git log | head -5", 0],
      ["npm test | tail -5; echo done", 0], // the last command is not the pipeline
      ["npm test | tail -5 &", 0],
      ["for f in a b; do cat $f | tail -1; done", 0],
      ["x=$(npm test | tail -1)", 0],
      ['echo "unbalanced', 0],
    ] as const
  ) {
    assertEquals(maskedStatusNote(command, code), undefined, command);
  }
});
