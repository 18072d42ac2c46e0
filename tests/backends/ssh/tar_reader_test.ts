// The streaming tar reader against archives made by the real GNU tar, fed in arbitrary chunk
// sizes (fast-check): long names, empty files, binary data, sizes that end on block bounds.

import fc from "fast-check";
import { type TarEntry, TarReader } from "../../../lib/backends/ssh/tar_reader.ts";
import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";

async function makeArchive(root: string, files: Record<string, Uint8Array>): Promise<Uint8Array> {
  const paths: string[] = [];
  for (const [rel, data] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(path, data);
    paths.push(path);
  }
  const child = new Deno.Command("tar", {
    args: ["-c", "-f", "-", "-b", "1", "-P", "--no-recursion", "--null", "-T", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(paths.join("\0") + "\0"));
  await w.close();
  const out = await child.output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

function readInChunks(archive: Uint8Array, cuts: number[]): { entries: TarEntry[]; used: number } {
  const entries: TarEntry[] = [];
  const reader = new TarReader((e) => entries.push(e));
  const points = [...new Set(cuts.map((c) => c % (archive.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  let used = 0;
  for (const p of [...points, archive.length]) {
    if (p <= at) continue;
    used += reader.push(archive.subarray(at, p));
    at = p;
  }
  assert(reader.ended, "the end-of-archive blocks were seen");
  return { entries, used };
}

Deno.test("the tar reader yields every file of a GNU tar archive whatever the chunking", async () => {
  await using dir = await tempDir();
  const files: Record<string, Uint8Array> = {
    "a.txt": new TextEncoder().encode("hello\n"),
    "empty.txt": new Uint8Array(0),
    "block.bin": new Uint8Array(512).fill(7),
    "big.bin": new Uint8Array(70_001).map((_, i) => (i * 13) % 256),
    [`${"long-directory-name/".repeat(6)}${"n".repeat(110)}.txt`]: new TextEncoder().encode(
      "long\n",
    ),
    "ünïcode name.txt": new TextEncoder().encode("ü\n"),
  };
  const archive = await makeArchive(dir.path, files);
  // Bytes after the archive (the helper's trailer) are not consumed.
  const withTrailer = new Uint8Array(archive.length + 17);
  withTrailer.set(archive);
  withTrailer.set(new TextEncoder().encode("\nanchorfs-done 0\n"), archive.length);
  fc.assert(
    fc.property(fc.array(fc.nat({ max: withTrailer.length }), { maxLength: 40 }), (cuts) => {
      const { entries, used } = readInChunks(withTrailer, cuts);
      assertEquals(used, archive.length);
      const got = Object.fromEntries(
        entries.map((e) => [e.name.slice(dir.path.length + 1), e.data]),
      );
      assertEquals(Object.keys(got).sort(), Object.keys(files).sort());
      for (const [name, data] of Object.entries(files)) assertEquals(got[name], data, name);
    }),
    { numRuns: 60 },
  );
});

Deno.test("an entry over maxDataBytes is skipped unbuffered; the entries around it still arrive", async () => {
  await using dir = await tempDir();
  const archive = await makeArchive(dir.path, {
    "a.txt": new TextEncoder().encode("small a"),
    "big.bin": new Uint8Array(5000).fill(7),
    [`${"n".repeat(150)}.txt`]: new TextEncoder().encode("long name"),
  });
  const entries: TarEntry[] = [];
  const reader = new TarReader((e) => entries.push(e), 1000);
  for (let at = 0; at < archive.length; at += 333) reader.push(archive.subarray(at, at + 333));
  assert(reader.ended);
  assertEquals(
    entries.map((e) => [e.name.slice(dir.path.length + 1), new TextDecoder().decode(e.data)]),
    [["a.txt", "small a"], [`${"n".repeat(150)}.txt`, "long name"]],
  );
});
