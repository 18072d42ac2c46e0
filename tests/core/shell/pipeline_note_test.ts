// pipeline_note.ts (pure): the note that a pipeline's last stage (tail, head, grep) hid the
// status, and none where it is the program's own or pipefail is set.

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import { maskedStatusNote } from "../../../lib/core/shell/pipeline_note.ts";

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

Deno.test("head and grep at the end of a pipeline hide the status too", () => {
  const table: [string, number, string][] = [
    ["npm test 2>&1 | head -100", 0, "Exit 0 is head's"],
    ["make 2>&1 | grep -i error", 0, "Exit 0 is grep's"],
    ["npm test | grep FAIL", 1, "Exit 1 is grep's (no line matched)"],
    ["cargo build 2>&1 | /bin/grep -E 'error|warning'", 0, "`| /bin/grep -E 'error|warning'`"],
    ["set -o pipefail; npm test | tail -3; set +o pipefail; make | tail -1", 0, "tail's"],
  ];
  for (const [command, code, expected] of table) {
    const note = maskedStatusNote(command, code);
    assertStringIncludes(note ?? "(none)", expected, command);
  }
  assertStringIncludes(maskedStatusNote("make | grep x", 0)!, "search its log instead");
});

Deno.test("no pipeline note when set -o pipefail is in effect", () => {
  for (
    const command of [
      "set -o pipefail; npm test 2>&1 | tail -50",
      "set -euo pipefail\nnpm test | head -20",
      "set -e -o pipefail && make 2>&1 | grep error",
      "cd app && set -o pipefail && npm test | tail -5",
    ]
  ) {
    assertEquals(maskedStatusNote(command, 0), undefined, command);
  }
  // Exit codes that are not the filter's own say nothing.
  assertEquals(maskedStatusNote("npm test | head -5", 1), undefined);
  assertEquals(maskedStatusNote("npm test | grep ok", 2), undefined);
});
