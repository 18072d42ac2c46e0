// The forms agents paste paths in: parsed, and plain paths left alone.

import { assertEquals } from "../../_assert.ts";
import { forgePathCandidates, readPastedPath } from "../../../lib/core/path/pasted_path.ts";

Deno.test("readPastedPath() reads locations, file URIs, forge URLs and scp's host:path", () => {
  const cases: [string, unknown][] = [
    ["src/app.py:623", { kind: "line", path: "src/app.py", lines: { start: 623 } }],
    ["src/app.py:5:12", { kind: "line", path: "src/app.py", lines: { start: 5, column: 12 } }],
    ["a.ts:3:7:", { kind: "line", path: "a.ts", lines: { start: 3, column: 7 } }],
    ["file:///srv/a%20b/README.md", { kind: "file-uri", path: "/srv/a b/README.md" }],
    ["file:///C:/src/a.ts", { kind: "file-uri", path: "C:/src/a.ts" }],
    ["devbox:/srv/x", { kind: "scp", host: "devbox", path: "/srv/x" }],
    ["me@box.lan:~/app", { kind: "scp", host: "me@box.lan", path: "~/app" }],
    [
      "https://github.com/o/r/blob/main/src/x.py#L10-L20",
      {
        kind: "forge",
        url: "https://github.com/o/r/blob/main/src/x.py#L10-L20",
        forge: "github.com",
        path: "src/x.py",
        lines: { start: 10, end: 20 },
      },
    ],
    [
      "https://gitlab.com/g/p/-/blob/v1/lib/a.rb",
      {
        kind: "forge",
        url: "https://gitlab.com/g/p/-/blob/v1/lib/a.rb",
        forge: "gitlab.com",
        path: "lib/a.rb",
      },
    ],
    [
      "https://codeberg.org/o/r/src/branch/main/a.go#L3",
      {
        kind: "forge",
        url: "https://codeberg.org/o/r/src/branch/main/a.go#L3",
        forge: "codeberg.org",
        path: "a.go",
        lines: { start: 3 },
      },
    ],
  ];
  for (const [text, want] of cases) assertEquals(readPastedPath(text), want, text);
  for (
    const plain of ["src/app.py", "C:/src/a.ts", "C:\\src", "ssh://box/srv", "a:b", "12:ab", "~/x"]
  ) {
    assertEquals(readPastedPath(plain), undefined, plain);
  }
});

Deno.test("forgePathCandidates() tries the path after a ref that may hold slashes", () => {
  assertEquals(forgePathCandidates("new/src/x.py"), ["new/src/x.py", "src/x.py", "x.py"]);
});
