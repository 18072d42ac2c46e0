import {
  isWriteTempName,
  writeTempName,
  writeTempPid,
} from "../../../lib/core/path/write_temp_name.ts";
import { assertEquals } from "../../_assert.ts";

Deno.test("write temp names round-trip and are told apart from the user's files", () => {
  const cases: [string, boolean, number | "remote" | null][] = [
    [writeTempName("a.txt", 42, 7), true, 42],
    [writeTempName(".env", 42, 7), true, 42],
    [writeTempName("a.txt", 42, 1700000000000, 3), true, "remote"],
    [".a.txt.anchorfs-12.tmp", false, null],
    [".a.txt.anchorfs-x-1.tmp", false, null],
    ["a.txt.anchorfs-1-2.tmp", false, null],
    [".a.txt.anchorfs-1-2.tmp.bak", false, null],
    ["notes.tmp", false, null],
  ];
  for (const [name, isTemp, pid] of cases) {
    assertEquals([name, isWriteTempName(name), writeTempPid(name)], [name, isTemp, pid]);
  }
});
