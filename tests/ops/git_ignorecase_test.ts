// core.ignorecase: a repository whose config sets it has its .gitignore rules matched without
// case (as git does); otherwise they match case-sensitively. Through the walk, listing and search.

import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_harness.ts";
import { needing } from "../_requires.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import type { FileBackend } from "../../lib/ops/ports/file_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { walkFiles } from "../../lib/ops/tree/walk.ts";
import { newWalkStats } from "../../lib/ops/tree/notices.ts";
import { viewText } from "./_view_text.ts";

const needs = needing("posix-fs");

const CONFIG_ON = "[core]\n\trepositoryformatversion = 0\n\tignorecase = true\n";
const CONFIG_OFF = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n";

function repo(config: string | undefined, root = "/repo"): Record<string, string> {
  return {
    [`${root}/.git/HEAD`]: "ref: refs/heads/main\n",
    ...(config !== undefined && { [`${root}/.git/config`]: config }),
    [`${root}/.gitignore`]: "*.log\nbuild/\n",
    [`${root}/App.LOG`]: "needle\n",
    [`${root}/app.log`]: "needle\n",
    [`${root}/Build/out.txt`]: "needle\n",
    [`${root}/src/main.ts`]: "needle\n",
  };
}

async function walked(backend: FileBackend, root: string): Promise<string[]> {
  const rels: string[] = [];
  const options = { includeHidden: false };
  for await (const item of walkFiles(backend, root, options, newWalkStats())) rels.push(item.rel);
  return rels.sort();
}

Deno.test("ignorecase = true: *.log and build/ also skip App.LOG and Build/", async () => {
  const disk = new MemoryBackend(repo(CONFIG_ON));
  assertEquals(await walked(disk, "/repo"), ["src/main.ts"]);
  // From a subdirectory the enclosing repository's setting still applies.
  assertEquals(await walked(disk, "/repo/src"), ["main.ts"]);
});

Deno.test("no ignorecase (or false): the rules match case-sensitively, as before", async () => {
  for (const config of [CONFIG_OFF, undefined, "[core]\n\tignorecase = false\n"]) {
    const disk = new MemoryBackend(repo(config));
    assertEquals(await walked(disk, "/repo"), ["App.LOG", "Build/out.txt", "src/main.ts"]);
  }
});

Deno.test("a repository inside the walk uses its own setting for its own ignore files", async () => {
  const disk = new MemoryBackend({
    ...repo(CONFIG_OFF),
    ...repo(CONFIG_ON, "/repo/vendor/lib"),
  });
  assertEquals(await walked(disk, "/repo"), [
    "App.LOG",
    "Build/out.txt",
    "src/main.ts",
    "vendor/lib/src/main.ts",
  ]);
});

Deno.test("a worktree's .git file is followed to the common dir's config", async () => {
  const disk = new MemoryBackend({
    "/main/.git/config": CONFIG_ON,
    "/main/.git/worktrees/wt/commondir": "../..\n",
    "/wt/.git": "gitdir: /main/.git/worktrees/wt\n",
    "/wt/.gitignore": "*.log\n",
    "/wt/A.LOG": "x\n",
    "/wt/b.ts": "x\n",
  });
  assertEquals(await walked(disk, "/wt"), ["b.ts"]);
});

Deno.test("listing and search skip by case-folded rules where the repository says ignorecase", async () => {
  const disk = new MemoryBackend(repo(CONFIG_ON));
  const locations = new Locations(disk);
  const session = createSession(locations.localAt("/repo"));
  const listing = await viewText(locations, session, { path: "." });
  assertEquals(listing.includes("App.LOG"), false, listing);
  assertStringIncludes(listing, "src/main.ts");
  const found = await viewText(locations, session, { path: ".", content: "needle" });
  assertEquals(found.includes("App.LOG") || found.includes("Build/"), false, found);
  assertStringIncludes(found, "src/main.ts");
  const names = await viewText(locations, session, { path: ".", pattern: "*.LOG" });
  assertEquals(names.includes("App.LOG\t"), false, names);
});

Deno.test(
  needs("on the local disk: the config is read through the backend, on and off", async () => {
    await using dir = await tempDir();
    const disk = new LocalBackend();
    try {
      for (const [name, config] of [["on", CONFIG_ON], ["off", CONFIG_OFF]]) {
        for (const [path, text] of Object.entries(repo(config, `${dir.path}/${name}`))) {
          await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
          await Deno.writeTextFile(path, text);
        }
      }
      assertEquals(await walked(disk, `${dir.path}/on`), ["src/main.ts"]);
      assertEquals(await walked(disk, `${dir.path}/off`), [
        "App.LOG",
        "Build/out.txt",
        "src/main.ts",
      ]);
    } finally {
      await disk.close();
    }
  }),
);
