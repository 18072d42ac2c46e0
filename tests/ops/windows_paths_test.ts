// Windows path semantics on any OS: a MemoryBackend with WINDOWS_PATHS stands for a Windows disk
// (case-insensitive, names keep their spelling), driven through the ops functions the tools call.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import type { AnchorError } from "../../lib/core/errors.ts";
import { MACOS_PATHS, WINDOWS_PATHS } from "../../lib/core/path/path_rules.ts";
import { Confinement } from "../../lib/ops/confinement.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession, fileKey } from "../../lib/ops/session.ts";
import { viewText } from "./_view_text.ts";
import { runWorkdir } from "../../lib/ops/workdir.ts";
import { runTextEditor } from "../../lib/ops/edit/text_editor.ts";
import { runExtractLines } from "../../lib/ops/edit/extract_lines.ts";
import { FileLocks } from "../../lib/core/file_locks.ts";
import { UndoStore } from "../../lib/ops/edit/undo_store.ts";
import type { EditServices } from "../../lib/ops/edit/commit.ts";
import { asText } from "./edit/_env.ts";

function windowsDisk(files: Record<string, string> = {}) {
  const disk = new MemoryBackend(
    { "C:\\proj\\a.txt": "alpha\nbeta\n", "C:\\proj\\sub\\b.txt": "beta two\n", ...files },
    { paths: WINDOWS_PATHS },
  );
  const locations = new Locations(disk);
  const session = createSession(locations.localAt("C:\\proj"));
  const services: EditServices = { locations, undo: new UndoStore(), editLocks: new FileLocks() };
  const text = async (path: string) => new TextDecoder().decode(await disk.readFile(path));
  return { disk, locations, session, services, text };
}

const resolved = async (t: ReturnType<typeof windowsDisk>, raw: string) =>
  (await t.locations.resolve(raw, t.session.cwd)).path;

Deno.test("Windows paths resolve: drive letters, / or \\, .., relative to the workdir, ~\\", async () => {
  const t = windowsDisk();
  assertEquals(await resolved(t, "C:\\proj\\a.txt"), "C:\\proj\\a.txt");
  assertEquals(await resolved(t, "c:/proj/a.txt"), "C:\\proj\\a.txt");
  assertEquals(await resolved(t, "C:\\proj\\sub\\..\\a.txt"), "C:\\proj\\a.txt");
  assertEquals(await resolved(t, "sub\\b.txt"), "C:\\proj\\sub\\b.txt");
  assertEquals(await resolved(t, "sub/../a.txt"), "C:\\proj\\a.txt");
  assertEquals(await resolved(t, "\\\\server\\share\\x"), "\\\\server\\share\\x");
  assertEquals(await resolved(t, "~\\notes.md"), "C:\\Users\\user\\notes.md");
  assertEquals(await resolved(t, "\\other\\x"), "C:\\other\\x");
});

Deno.test("a drive-relative C:foo is refused, naming C:\\foo as the spelling to use", async () => {
  const t = windowsDisk();
  const e = await assertRejects(() =>
    viewText(t.locations, t.session, { path: "C:foo" })
  ) as AnchorError;
  assertEquals(e.code, "INVALID_PATH");
  assertStringIncludes(String(e.hint), '"C:\\\\foo"');
});

Deno.test("view, list and search show Windows paths relative to the workdir", async () => {
  const t = windowsDisk();
  const file = await viewText(t.locations, t.session, { path: "c:/PROJ/sub/B.TXT" });
  assertStringIncludes(file, "beta two");
  const listing = await viewText(t.locations, t.session, { path: "." });
  assertStringIncludes(listing, "a.txt\t");
  assertStringIncludes(listing, "sub\\b.txt\t");
  const cut = await viewText(t.locations, t.session, { path: "C:\\proj", max_depth: 1 });
  assertStringIncludes(cut, "sub\\\tdirectory, not entered");
  const found = await viewText(t.locations, t.session, { path: ".", content: "beta" });
  assertStringIncludes(found, "a.txt");
  assertStringIncludes(found, "sub\\b.txt");
  assert(!found.includes("sub/b.txt"), found);
  const elsewhere = await viewText(t.locations, t.session, { path: "sub", content: "two" });
  assertStringIncludes(elsewhere, "sub\\b.txt");
});

Deno.test(".gitignore rules apply under a Windows root", async () => {
  const t = windowsDisk({
    "C:\\proj\\.git\\HEAD": "ref\n",
    "C:\\proj\\.gitignore": "build/\n",
    "C:\\proj\\build\\out.txt": "beta built\n",
  });
  const found = await viewText(t.locations, t.session, { path: ".", content: "beta" });
  assert(!found.includes("out.txt"), found);
  assertStringIncludes(found, "sub\\b.txt");
});

Deno.test("workdir set takes Windows paths and folds case; get shows the disk's spelling", async () => {
  const t = windowsDisk();
  await runWorkdir(t.session, t.locations, "set", "c:\\PROJ\\SUB");
  assertEquals(t.session.cwd.path, "C:\\proj\\sub");
  assertStringIncludes(await asText(runWorkdir(t.session, t.locations, "get")), "C:\\proj\\sub");
  assertEquals(await resolved(t, "..\\a.txt"), "C:\\proj\\a.txt");
  const e = await assertRejects(() =>
    runWorkdir(t.session, t.locations, "set", "C:\\proj\\a.txt")
  ) as AnchorError;
  assertStringIncludes(String(e.hint), "C:\\\\proj");
});

Deno.test("edits: create, str_replace and undo under any spelling of one Windows path", async () => {
  const t = windowsDisk();
  await runTextEditor(t.services, t.session, {
    command: "create",
    path: "new\\dir\\c.txt",
    file_text: "one\n",
  });
  assertEquals(await t.text("C:\\proj\\new\\dir\\c.txt"), "one\n");
  assertEquals((await t.disk.readDir("C:\\proj\\new")).map((e) => e.name), ["dir"]);
  await viewText(t.locations, t.session, { path: "a.txt" });
  const out = await asText(runTextEditor(t.services, t.session, {
    command: "str_replace",
    path: "C:\\PROJ\\A.TXT",
    old_text: "alpha",
    new_text: "gamma",
  }));
  assertStringIncludes(out, "A.TXT");
  assertEquals(await t.text("C:\\proj\\a.txt"), "gamma\nbeta\n");
  // The undo entry was keyed by the file, not by how it was spelled.
  await runTextEditor(t.services, t.session, { command: "undo_edit", path: "c:/proj/a.txt" });
  assertEquals(await t.text("C:\\proj\\a.txt"), "alpha\nbeta\n");
  const one = await t.locations.resolve("a.txt", t.session.cwd);
  const other = await t.locations.resolve("C:\\PROJ\\A.TXT", t.session.cwd);
  assertEquals(fileKey(one), fileKey(other));
});

Deno.test("extract_lines copies between Windows paths and creates the target folder", async () => {
  const t = windowsDisk();
  await runExtractLines(t.services, t.session, {
    from_path: "sub\\b.txt",
    start: 1,
    to_path: "C:\\proj\\out\\c.txt",
    position: 0,
  });
  assertEquals(await t.text("c:\\proj\\out\\c.txt"), "beta two\n");
});

Deno.test("confinement on Windows paths: case-insensitive, by components, no ..\\ escape", async () => {
  const t = windowsDisk({ "C:\\proj2\\x.txt": "secret\n", "C:\\Proj\\x.txt": "mine\n" });
  const confinement = await Confinement.create(t.locations, t.session.cwd, {
    allow: ["C:\\Proj"],
    roots: false,
  });
  t.locations.setGuard(confinement);
  assertStringIncludes(await viewText(t.locations, t.session, { path: "c:\\proj\\x.txt" }), "mine");
  assertStringIncludes(await viewText(t.locations, t.session, { path: "sub\\b.txt" }), "beta two");
  for (const path of ["C:\\proj2\\x.txt", "..\\proj2\\x.txt", "..\\..\\proj2\\x.txt"]) {
    const e = await assertRejects(() => viewText(t.locations, t.session, { path })) as AnchorError;
    assertEquals(e.code, "OUTSIDE_ALLOWED", path);
    assertStringIncludes(e.message, "proj2", path);
  }
});

Deno.test("client roots as Windows file URIs become the allowed set", async () => {
  const t = windowsDisk({ "C:\\proj2\\x.txt": "secret\n" });
  const confinement = (await Confinement.create(t.locations, t.session.cwd, {
    allow: [],
    roots: true,
  }))!;
  await confinement.setStartDir(t.session.cwd);
  t.locations.setGuard(confinement);
  const ignored = await confinement.setRoots(["file:///c%3A/Proj", "https://example.com/"]);
  assertEquals(ignored, ["https://example.com/"]);
  assertStringIncludes(await viewText(t.locations, t.session, { path: "a.txt" }), "alpha");
  await assertRejects(() => viewText(t.locations, t.session, { path: "C:\\proj2\\x.txt" }));
});

Deno.test("macOS rules: confinement folds case on a case-insensitive disk", async () => {
  const disk = new MemoryBackend({ "/Users/me/Proj/a.txt": "alpha\n" }, { paths: MACOS_PATHS });
  const locations = new Locations(disk);
  const session = createSession(locations.localAt("/Users/me"));
  const confinement = await Confinement.create(locations, session.cwd, {
    allow: ["/users/ME/proj"],
    roots: false,
  });
  locations.setGuard(confinement);
  assertStringIncludes(await viewText(locations, session, { path: "Proj/A.TXT" }), "alpha");
  const e = await assertRejects(() =>
    viewText(locations, session, { path: "/Users/me/Other" })
  ) as AnchorError;
  assertEquals(e.code, "OUTSIDE_ALLOWED");
});
