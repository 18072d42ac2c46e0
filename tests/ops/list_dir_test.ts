// Listings (ops/tree/list_dir.ts) over LocalBackend on real directories: the summary rows match reading
// each head, a file gone mid-listing is listed unreadable.

import { assertEquals, assertMatch, assertStringIncludes } from "../_assert.ts";
import { tempDir, writeTree } from "../_harness.ts";
import { LocalBackend } from "../../lib/backends/local/local_backend.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { type ViewArgs, viewResult } from "../../lib/ops/view.ts";
import { viewText } from "./_view_text.ts";
import { renderGuide } from "../../lib/core/next_step.ts";
import { cliStepSyntax } from "../../lib/cli/step_command.ts";
import { LIST_HEAD_BYTES } from "../../lib/ops/tree/list_dir.ts";
import type { FileBackend } from "../../lib/ops/ports/file_backend.ts";
import { needing } from "../_requires.ts";

const needsPosixFs = needing("posix-fs");

const text = (n: number, line = "some text here") =>
  Array.from({ length: n }, (_, i) => `${line} ${i}`).join("\n") + "\n";

function utf16le(value: string): Uint8Array {
  const out = new Uint8Array(2 + value.length * 2);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < value.length; i++) out[2 + i * 2] = value.charCodeAt(i);
  return out;
}

Deno.test("local listing summaries give the rows that reading each head gives", async () => {
  await using dir = await tempDir();
  const exact = new Uint8Array(LIST_HEAD_BYTES).fill(0x61);
  exact[100] = 10;
  await writeTree(dir.path, {
    "a.txt": text(3),
    "crlf.txt": "one\r\ntwo\r\n",
    "bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a]),
    "utf16.txt": utf16le("a\nb\nc"),
    "bin.dat": new Uint8Array([1, 2, 0, 3]),
    "empty.txt": "",
    "no-newline.txt": "last line",
    "big.log.txt": text(30_000), // over the head: estimated
    "exact.txt": exact, // exactly the head: counted
    "sub/deep/c.ts": text(2),
  });
  const local = new LocalBackend();
  // The same disk without summaries: rows come from heads read in order, as for remote hosts.
  const reading: FileBackend = Object.assign(Object.create(local), { summarizeFiles: undefined });
  for (const args of [{ path: "." }, { path: ".", pattern: "*.txt" }] as ViewArgs[]) {
    const views: string[] = [];
    for (const backend of [local, reading]) {
      const locations = new Locations(backend);
      views.push(await viewText(locations, createSession(locations.localAt(dir.path)), args));
    }
    assertEquals(views[0], views[1], JSON.stringify(args));
  }
  const locations = new Locations(local);
  const rows = await viewText(locations, createSession(locations.localAt(dir.path)), { path: "." });
  assertMatch(rows, /\nbig\.log\.txt\t~(29|30),\d{3} lines \(estimated\)\t~[\d,]+ tokens\n/);
  assertStringIncludes(rows, "exact.txt\t2 lines\t~65,536 tokens");
  assertStringIncludes(rows, "utf16.txt\t3 lines\t");
  assertStringIncludes(rows, "bin.dat\tbinary\t4 bytes");
  assertStringIncludes(rows, "empty.txt\t0 lines\t~0 tokens");
  assertStringIncludes(rows, "no-newline.txt\t1 line\t");
});

Deno.test("a file gone between the walk and its summary is listed as unreadable", () => {
  const local = new LocalBackend();
  const [gone] = [...local.summarizeFiles(["/nonexistent-anchorfs-dir/x.txt"], 1024)];
  assertEquals(gone!.summary, undefined);
  assertStringIncludes(gone!.error!.message, "/nonexistent-anchorfs-dir/x.txt");
});

Deno.test(
  needsPosixFs(
    "a FIFO put where the walk saw a file is refused at once, not waited on",
    async () => {
      await using dir = await tempDir();
      const mkfifo = await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe`] }).output();
      assertEquals(mkfifo.success, true);
      const [pipe] = [...new LocalBackend().summarizeFiles([`${dir.path}/pipe`], 1024)];
      assertEquals(pipe!.summary, undefined);
      assertEquals((pipe!.error as { code?: string }).code, "NOT_A_REGULAR_FILE");
    },
  ),
);

Deno.test(needsPosixFs(
  "a folder of symlinks says the links were skipped and names the call that views one",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "real/target.txt": "hello\n", "real/other.md": "# hi\n" });
    await Deno.mkdir(`${dir.path}/links`);
    await Deno.symlink("../real/target.txt", `${dir.path}/links/a.txt`);
    await Deno.symlink("../real/other.md", `${dir.path}/links/b.md`);
    await Deno.symlink("../real", `${dir.path}/links/c-dir`);
    await Deno.symlink("../real/target.txt", `${dir.path}/links/.hidden-link`);
    const locations = new Locations(new LocalBackend());
    const session = createSession(locations.localAt(dir.path));
    const listed = await viewText(locations, session, { path: "links" });
    assertStringIncludes(listed, 'No files to list in "links": scanned 0 files');
    assertStringIncludes(
      listed,
      '3 symlinks skipped ("links/a.txt", "links/b.md", "links/c-dir"): links are not followed ' +
        'in a listing; naming one as the path views its target: view {"path":"links/a.txt"}.',
    );
    // A person reads the same tip with the command to run.
    assertStringIncludes(
      renderGuide(await viewResult(locations, session, { path: "links" }), cliStepSyntax),
      "naming one as the path views its target: `anchorfs view links/a.txt`.",
    );
    // The call it names works: it shows the link's target.
    assertStringIncludes(await viewText(locations, session, { path: "links/a.txt" }), "|hello");
    // A pattern counts only the links it would have listed; a search says it searched none.
    const md = await viewText(locations, session, { path: "links", pattern: "*.md" });
    assertStringIncludes(md, '1 symlink skipped ("links/b.md")');
    assertStringIncludes(md, 'view {"path":"links/b.md"}');
    const searched = await viewText(locations, session, { path: "links", content: "hello" });
    assertStringIncludes(searched, "links are not followed in a search");
    const step = 'view {"path":"links/a.txt","content":"hello"}';
    assertStringIncludes(searched, step);
    assertStringIncludes(
      await viewText(locations, session, { path: "links/a.txt", content: "hello" }),
      "hello",
    );
  },
));
