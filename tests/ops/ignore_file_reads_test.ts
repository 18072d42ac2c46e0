// How a local walk reads its ignore and config files (ops/tree/repo_rules.ts): one bulk read each,
// which local disk answers without an event-loop turn, bounded and never opening a FIFO.

import { assertEquals } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import type { ReadFileOptions, ReadFilesOptions } from "../../lib/ops/ports/file_backend.ts";
import { walkFiles } from "../../lib/ops/tree/walk.ts";
import { newWalkStats } from "../../lib/ops/tree/notices.ts";
import { needing } from "../_requires.ts";

const needsPosixFs = needing("posix-fs");

/** Local disk, its reads of the ignore and config files below `root` noted by kind. */
class NotedBackend extends LocalBackend {
  readonly reads: string[] = [];
  constructor(private readonly root: string) {
    super();
  }
  private note(kind: string, path: string): void {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (path.startsWith(`${this.root}/`) && [".gitignore", "exclude", "config"].includes(name)) {
      this.reads.push(`${kind} ${path.slice(this.root.length + 1)}`);
    }
  }
  override stat(path: string) {
    this.note("stat", path);
    return super.stat(path);
  }
  override readFile(path: string, options?: ReadFileOptions) {
    this.note("readFile", path);
    return super.readFile(path, options);
  }
  override readRange(path: string, offset: number, length: number) {
    this.note("readRange", path);
    return super.readRange(path, offset, length);
  }
  override readFiles(paths: readonly string[], options?: ReadFilesOptions) {
    for (const path of paths) this.note("readFiles", path);
    return super.readFiles(paths, options);
  }
}

async function walk(backend: LocalBackend, root: string): Promise<string[]> {
  const rels: string[] = [];
  for await (const item of walkFiles(backend, root, { includeHidden: false }, newWalkStats())) {
    rels.push(item.rel);
  }
  return rels;
}

Deno.test("a local walk reads each ignore and config file with one bulk read, no stat or awaited read", async () => {
  await using dir = await tempDir();
  const root = `${dir.path}/t`;
  await writeTree(root, {
    ".git/config": "[core]\n\tbare = false\n",
    ".git/info/exclude": "secret.txt\n",
    ".gitignore": "*.log\n",
    "a.txt": "a\n",
    "a.log": "x\n",
    "secret.txt": "s\n",
    "sub/.gitignore": "!keep.log\nb.txt\n",
    "sub/b.txt": "b\n",
    "sub/c.txt": "c\n",
    "sub/keep.log": "k\n",
  });
  const backend = new NotedBackend(root);
  assertEquals(await walk(backend, root), ["a.txt", "sub/c.txt", "sub/keep.log"]);
  assertEquals(backend.reads.sort(), [
    "readFiles .git/config",
    "readFiles .git/info/exclude",
    "readFiles .gitignore",
    "readFiles sub/.gitignore",
  ]);
});

Deno.test(needsPosixFs(
  "a local walk's bulk read of an ignore file keeps its first MiB and passes over a FIFO",
  async () => {
    await using dir = await tempDir();
    const root = `${dir.path}/t`;
    // The rule after the first MiB is cut off, as readHead cut it: late.txt stays listed.
    const filler = `${"#".repeat(1023)}\n`.repeat(1024);
    await writeTree(root, {
      ".git/config": "",
      ".gitignore": `${filler}late.txt\n`,
      "early.txt": "e\n",
      "late.txt": "l\n",
      "sub/x.txt": "x\n",
    });
    await Deno.remove(`${root}/.git/config`);
    // A FIFO where the config is read: opened, it would hold the walk until a writer came.
    const made = await new Deno.Command("mkfifo", { args: [`${root}/.git/config`] }).output();
    assertEquals(made.success, true);
    assertEquals(await walk(new LocalBackend(), root), ["early.txt", "late.txt", "sub/x.txt"]);
  },
));
