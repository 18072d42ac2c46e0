// git_config.ts (pure): core.ignorecase read as git reads it, and where a .git file points.

import { assertEquals } from "../../_assert.ts";
import { gitDirPointer, gitIgnoreCase } from "../../../lib/core/search/git_config.ts";

Deno.test("gitIgnoreCase reads core.ignorecase as git does", () => {
  const table: [string, boolean | undefined][] = [
    ["[core]\n\trepositoryformatversion = 0\n\tignorecase = true\n", true],
    ["[core]\n\tignorecase = false\n", false],
    ["[Core]\n\tIgnoreCase = Yes\n", true],
    ["[core]\n\tignorecase\n", true],
    ['[core]\n\tignorecase = "on" ; set by git init\n', true],
    ["[core]\n\tignorecase = 0\n", false],
    ["[core]\n\tignorecase = true\n[core]\n\tignorecase = false\n", false],
    ["[core] ignorecase = true\n", true],
    ["[core]\n\tfilemode = true\n", undefined],
    ['[remote "origin"]\n\tignorecase = true\n[core]\n\tbare = false\n', undefined],
    ["# [core]\n# ignorecase = true\n", undefined],
    ["[core]\r\n\tignorecase = true\r\n", true],
    ["", undefined],
  ];
  for (const [text, want] of table) assertEquals(gitIgnoreCase(text), want, JSON.stringify(text));
});

Deno.test("gitDirPointer reads where a .git file points", () => {
  assertEquals(gitDirPointer("gitdir: ../.git/worktrees/x\n"), "../.git/worktrees/x");
  assertEquals(gitDirPointer("gitdir: /abs/.git/modules/sub"), "/abs/.git/modules/sub");
  assertEquals(gitDirPointer("nonsense\n"), undefined);
});
