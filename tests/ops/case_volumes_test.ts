// Case folding per volume, through the ops the tools call: a MemoryBackend of mixed volumes (a
// folding /usb under a case-sensitive /, as a vfat stick on Linux) stands for a disk this machine
// cannot mount; anchorfs learns which is which by probing, as it does on a real disk.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import type { AnchorError } from "../../lib/core/errors.ts";
import { MACOS_PATHS } from "../../lib/core/path/path_rules.ts";
import { Confinement } from "../../lib/ops/confinement.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession, fileKey } from "../../lib/ops/session.ts";
import { viewText } from "./_view_text.ts";
import { runTextEditor } from "../../lib/ops/edit/text_editor.ts";
import { FileLocks } from "../../lib/core/file_locks.ts";
import { UndoStore } from "../../lib/ops/edit/undo_store.ts";
import type { EditServices } from "../../lib/ops/edit/commit.ts";
import { asText } from "./edit/_env.ts";

function mixedDisk(files: Record<string, string> = {}) {
  const disk = new MemoryBackend({
    "/usb/Proj/Notes.txt": "alpha\nbeta\n",
    "/home/me/Proj/Notes.txt": "home\n",
    "/home/me/Proj/notes.txt": "other home\n",
    ...files,
  }, { volumes: { "/usb": true } });
  const locations = new Locations(disk);
  const session = createSession(locations.localAt("/home/me"));
  const services: EditServices = { locations, undo: new UndoStore(), editLocks: new FileLocks() };
  const text = async (path: string) => new TextDecoder().decode(await disk.readFile(path));
  return { disk, locations, session, services, text };
}

Deno.test("confinement: --allow on a folding volume allows any spelling below it, not above", async () => {
  const t = mixedDisk({ "/usb/Proj2/x.txt": "secret\n" });
  const confinement = await Confinement.create(t.locations, t.session.cwd, {
    allow: ["/usb/proj"],
    roots: false,
  });
  t.locations.setGuard(confinement);
  assertStringIncludes(
    await viewText(t.locations, t.session, { path: "/usb/PROJ/notes.TXT" }),
    "alpha",
  );
  for (const path of ["/usb/Proj2/x.txt", "/USB/Proj/Notes.txt"]) {
    const e = await assertRejects(() => viewText(t.locations, t.session, { path })) as AnchorError;
    assertEquals(e.code, "OUTSIDE_ALLOWED", path);
  }
});

Deno.test("confinement: --allow on a case-sensitive volume keeps case (/home/Me is not /home/me)", async () => {
  const t = mixedDisk({ "/home/Me/x.txt": "another user\n" });
  const confinement = await Confinement.create(t.locations, t.session.cwd, {
    allow: ["/home/me"],
    roots: false,
  });
  t.locations.setGuard(confinement);
  assertStringIncludes(await viewText(t.locations, t.session, { path: "Proj/Notes.txt" }), "home");
  const e = await assertRejects(() =>
    viewText(t.locations, t.session, { path: "/home/Me/x.txt" })
  ) as AnchorError;
  assertEquals(e.code, "OUTSIDE_ALLOWED");
});

Deno.test("edit memory and undo: one file under any spelling on a folding volume", async () => {
  const t = mixedDisk();
  await viewText(t.locations, t.session, { path: "/usb/proj/notes.txt" });
  await asText(runTextEditor(t.services, t.session, {
    command: "str_replace",
    path: "/usb/PROJ/NOTES.TXT",
    old_text: "alpha",
    new_text: "gamma",
  }));
  assertEquals(await t.text("/usb/Proj/Notes.txt"), "gamma\nbeta\n");
  await runTextEditor(t.services, t.session, { command: "undo_edit", path: "/usb/Proj/Notes.txt" });
  assertEquals(await t.text("/usb/Proj/Notes.txt"), "alpha\nbeta\n");
  const one = await t.locations.resolve("/usb/proj/notes.txt", t.session.cwd);
  const other = await t.locations.resolve("/usb/Proj/Notes.txt", t.session.cwd);
  assertEquals(fileKey(one), fileKey(other));
});

Deno.test("edit memory and undo: two files that differ in case stay two on a case-sensitive volume", async () => {
  const t = mixedDisk();
  const upper = await t.locations.resolve("Proj/Notes.txt", t.session.cwd);
  const lower = await t.locations.resolve("Proj/notes.txt", t.session.cwd);
  assert(fileKey(upper) !== fileKey(lower));
  await viewText(t.locations, t.session, { path: "Proj/Notes.txt" });
  await runTextEditor(t.services, t.session, {
    command: "str_replace",
    path: "Proj/Notes.txt",
    old_text: "home",
    new_text: "HOME",
  });
  await runTextEditor(t.services, t.session, {
    command: "str_replace",
    path: "Proj/notes.txt",
    old_text: "other",
    new_text: "OTHER",
  });
  // Undo on one spelling takes back that file's edit only.
  await runTextEditor(t.services, t.session, { command: "undo_edit", path: "Proj/notes.txt" });
  assertEquals(await t.text("/home/me/Proj/notes.txt"), "other home\n");
  assertEquals(await t.text("/home/me/Proj/Notes.txt"), "HOME\n");
});

Deno.test("write locks: two spellings of one file on a folding volume wait for each other", async () => {
  const t = mixedDisk();
  const order: string[] = [];
  let releaseFirst!: () => void;
  const first = t.disk.withWriteLock("/usb/Proj/Notes.txt", async () => {
    order.push("first in");
    await new Promise<void>((resolve) => (releaseFirst = resolve));
    order.push("first out");
  });
  const second = t.disk.withWriteLock("/usb/proj/NOTES.txt", () => {
    order.push("second");
    return Promise.resolve();
  });
  const elsewhere = t.disk.withWriteLock("/home/me/Proj/notes.txt", () => {
    order.push("case-sensitive twin");
    return Promise.resolve();
  });
  await elsewhere;
  releaseFirst();
  await Promise.all([first, second]);
  assertEquals(order, ["first in", "case-sensitive twin", "first out", "second"]);
});

Deno.test("a case-sensitive volume on a folding platform (macOS rules) keeps case below it", async () => {
  const disk = new MemoryBackend(
    {
      "/Users/me/A.txt": "folded\n",
      "/Volumes/Dev/A.txt": "upper\n",
      "/Volumes/Dev/a.txt": "lower\n",
    },
    { paths: MACOS_PATHS, volumes: { "/Volumes/Dev": false } },
  );
  const locations = new Locations(disk);
  const session = createSession(locations.localAt("/Users/me"));
  assertStringIncludes(await viewText(locations, session, { path: "/users/ME/a.TXT" }), "folded");
  assertStringIncludes(await viewText(locations, session, { path: "/volumes/dev/a.txt" }), "lower");
  const a = await locations.resolve("/Volumes/Dev/A.txt", session.cwd);
  const b = await locations.resolve("/Volumes/Dev/a.txt", session.cwd);
  assert(fileKey(a) !== fileKey(b));
});
