// The case probe: its decisions on injected lookups (folding disks this machine cannot mount:
// vfat and ext4 casefold are missing from this kernel), on the real local disk (case-sensitive
// here), and through a MemoryBackend of mixed volumes.

import { assert, assertEquals, assertRejects } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { probeDirectory, type ProbeLookup, type ProbeView } from "../../lib/backends/case_probe.ts";
import { localCaseView } from "../../lib/backends/local/case_view.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { POSIX_PATHS } from "../../lib/core/path/path_rules.ts";

const needs = needing("posix-fs");

/** A directory `/d` of `names`, whose lookups answer from `table` (missing when absent). */
function view(
  names: string[],
  table: Record<string, ProbeLookup>,
  complete = true,
): ProbeView & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    names: () => Promise.resolve({ names, complete }),
    lookup: (path) => {
      asked.push(path);
      return Promise.resolve(table[path] ?? "missing");
    },
  };
}

const file = (id: string, links = 1): ProbeLookup => ({ id, isDir: false, links });

Deno.test("probe: the swapped spelling finds the same inode → the directory folds", async () => {
  const v = view(["Readme.md"], { "/d/Readme.md": file("1:5"), "/d/rEADME.MD": file("1:5") });
  assertEquals(await probeDirectory(v, POSIX_PATHS, "/d"), true);
  assertEquals(v.asked, ["/d/Readme.md", "/d/rEADME.MD"]);
});

Deno.test("probe: the swapped spelling finds nothing, or another file → case-sensitive", async () => {
  assertEquals(
    await probeDirectory(view(["a"], { "/d/a": file("1:1") }), POSIX_PATHS, "/d"),
    false,
  );
  const other = view(["a"], { "/d/a": file("1:1"), "/d/A": file("1:2") }, false);
  assertEquals(await probeDirectory(other, POSIX_PATHS, "/d"), false);
});

Deno.test("probe: a hard link under the swapped name proves nothing; the next name decides", async () => {
  const v = view(["x", "dir"], {
    "/d/x": file("1:7", 2),
    "/d/X": file("1:7", 2),
    "/d/dir": { id: "1:9", isDir: true },
    "/d/DIR": { id: "1:9", isDir: true },
  }, false);
  assertEquals(await probeDirectory(v, POSIX_PATHS, "/d"), true);
});

Deno.test("probe: without inodes, a spelling that resolves but is not listed folds", async () => {
  const sftpLike = view(["Makefile"], {
    "/d/Makefile": { isDir: false },
    "/d/mAKEFILE": { isDir: false },
  });
  assertEquals(await probeDirectory(sftpLike, POSIX_PATHS, "/d"), true);
  // Both spellings listed: two entries, which says nothing about lookups; no other name → unknown.
  const both = view(["Makefile", "mAKEFILE"], {
    "/d/Makefile": { isDir: false },
    "/d/mAKEFILE": { isDir: false },
  });
  assertEquals(await probeDirectory(both, POSIX_PATHS, "/d"), undefined);
  // A partial listing without inodes cannot rule out a second entry.
  const partial = view(["Makefile"], {
    "/d/Makefile": { isDir: false },
    "/d/mAKEFILE": { isDir: false },
  }, false);
  assertEquals(await probeDirectory(partial, POSIX_PATHS, "/d"), undefined);
});

Deno.test("probe: no letters, empty, unreadable or a failing lookup → undecided", async () => {
  assertEquals(await probeDirectory(view(["1", "_2"], {}), POSIX_PATHS, "/d"), undefined);
  assertEquals(await probeDirectory(view([], {}), POSIX_PATHS, "/d"), undefined);
  const unreadable: ProbeView = {
    names: () => Promise.reject(new Error("EACCES")),
    lookup: () => Promise.resolve("error"),
  };
  assertEquals(await probeDirectory(unreadable, POSIX_PATHS, "/d"), undefined);
  const denied = view(["a"], { "/d/a": file("1:1"), "/d/A": "error" });
  assertEquals(await probeDirectory(denied, POSIX_PATHS, "/d"), undefined);
});

Deno.test(needs("probe on this machine's disk: case-sensitive, so nothing folds", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/Notes.txt`, "n\n");
  assertEquals(await probeDirectory(localCaseView, POSIX_PATHS, dir.path), false);
  await Deno.writeTextFile(`${dir.path}/notes.txt`, "other\n");
  assertEquals(await probeDirectory(localCaseView, POSIX_PATHS, `${dir.path}`), false);
  const disk = new LocalBackend();
  try {
    await disk.learnCase(`${dir.path}/Notes.txt`);
    assert(!disk.paths.foldsIn(dir.path));
    assert(disk.paths.key(`${dir.path}/Notes.txt`) !== disk.paths.key(`${dir.path}/notes.txt`));
    assert(!disk.paths.isInside(`${dir.path}/X/y`, `${dir.path}/x`));
  } finally {
    await disk.close();
  }
}));

Deno.test("memory volumes: the backend learns which directories fold by probing them", async () => {
  const disk = new MemoryBackend(
    { "/usb/Docs/Plan.md": "p\n", "/home/me/Plan.md": "h\n", "/home/me/plan.md": "other\n" },
    { volumes: { "/usb": true } },
  );
  // Before any probe: the platform default (POSIX, case-sensitive).
  assert(disk.paths.key("/usb/docs/plan.md") !== disk.paths.key("/usb/Docs/Plan.md"));
  await disk.learnCase("/usb/Docs/Plan.md");
  await disk.learnCase("/home/me/Plan.md");
  assertEquals(disk.paths.key("/usb/DOCS/plan.MD"), disk.paths.key("/usb/Docs/Plan.md"));
  assert(disk.paths.key("/home/me/Plan.md") !== disk.paths.key("/home/me/plan.md"));
  assert(disk.paths.foldsIn("/usb/Docs") && !disk.paths.foldsIn("/home/me"));
  // The store itself folds there: any spelling below /usb reads the one file; / does not fold.
  assertEquals(new TextDecoder().decode(await disk.readFile("/usb/docs/PLAN.md")), "p\n");
  await assertRejects(() => disk.readFile("/USB/Docs/Plan.md"));
});
