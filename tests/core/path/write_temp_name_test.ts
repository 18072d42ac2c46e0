// write_temp_name.ts (pure): write temp names and recovery copy names round-trip, are told apart
// from the user's files, and stay under 255 bytes.

import {
  isWriteTempName,
  keptCopyName,
  recoveryCopyName,
  recoveryCopyOf,
  writeLockName,
  writeTempName,
  writeTempPid,
} from "../../../lib/core/path/write_temp_name.ts";
import { assertEquals } from "../../_assert.ts";

Deno.test("write temp names round-trip and are told apart from the user's files", () => {
  const cases: [string, boolean, number | "remote" | null][] = [
    [writeTempName("a.txt", 42, 7), true, 42],
    [writeTempName(".env", 42, 7), true, 42],
    [writeTempName("a.txt", 42, 1700000000000, 3), true, "remote"],
    [writeLockName("a.txt"), true, null], // hidden from listings, never swept as a dead temp
    ["a.txt.anchorfs-lock", false, null],
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

Deno.test("recovery copy names record pid, inode and what was written, and are not temp names", () => {
  const copy = { pid: 42, ino: 987654321, written: { size: 12, fingerprint: 0xdeadbeef } };
  const name = recoveryCopyName("a.txt", 3, copy);
  assertEquals(name, ".a.txt.anchorfs-42-3-i987654321-w12-deadbeef.orig");
  assertEquals(recoveryCopyOf(name), copy);
  assertEquals(isWriteTempName(name), false, "the dead-temp sweep must leave it");
  const small = recoveryCopyName("b", 1, { ...copy, written: { size: 0, fingerprint: 5 } });
  assertEquals(recoveryCopyOf(small)?.written, { size: 0, fingerprint: 5 });
  for (const other of ["a.txt.orig", ".a.txt.anchorfs-42-3-i9.orig", writeTempName("a", 1, 2)]) {
    assertEquals(recoveryCopyOf(other), null, other);
  }
});

Deno.test("a kept copy's name shows the file it belongs to and is never taken for a temp file", () => {
  assertEquals(keptCopyName("a.txt", 42, 3), "a.txt.anchorfs-kept-42-3");
  assertEquals(isWriteTempName(keptCopyName("a.txt", 42, 3)), false, "never swept, never hidden");
});

Deno.test("temp and recovery names stay under 255 bytes for a target whose name is near it", () => {
  for (const base of ["n".repeat(250), "é".repeat(127), "😀".repeat(63)]) {
    const names = [
      writeTempName(base, 4194304, 1700000000000, 99),
      recoveryCopyName(base, 99, {
        pid: 4194304,
        ino: 2 ** 52,
        written: { size: 2 ** 40, fingerprint: 0xffffffff },
      }),
    ];
    for (const name of names) {
      const bytes = new TextEncoder().encode(name).length;
      assertEquals(bytes <= 255, true, `${bytes} bytes: ${name}`);
      assertEquals(name.includes("\uFFFD"), false, "cut at a character, not inside one");
    }
    assertEquals(writeTempPid(names[0]!), "remote");
    assertEquals(recoveryCopyOf(names[1]!)?.pid, 4194304);
  }
});
