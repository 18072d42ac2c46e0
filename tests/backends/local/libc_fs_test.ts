// The search workers' libc reads (libc_fs.ts) against node:fs, the SummaryFs they replace: the
// same bytes, sizes and kinds, and a throw wherever node:fs throws (the caller then leaves the
// file to the main thread), on every kind of entry a walk can meet.

import * as fs from "node:fs";
import { assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_harness.ts";
import { needing } from "../../_requires.ts";
import { LIBC_FS_SYMBOLS, libcSummaryFs } from "../../../lib/backends/local/libc_fs.ts";
import type { SummaryFs } from "../../../lib/backends/local/quick_summary.ts";
import { quickSummary } from "../../../lib/backends/local/quick_summary.ts";
import { summarizeHead } from "../../../lib/core/text/head_summary.ts";

// mkfifo, and libc by FFI with Linux's flag values.
const linuxTest = needing("posix-fs", "linux-ffi");

/** What one implementation does with `path`: bytes read from 0 and from 5, size, or the throw. */
function probe(files: SummaryFs, path: string): unknown {
  let fd = -1;
  try {
    fd = files.openSync(path, files.constants.O_RDONLY | (files.constants.O_NONBLOCK ?? 0));
    const buf = new Uint8Array(1 << 17);
    const first = files.readSync(fd, buf, 0, 1 << 16, null);
    const more = files.readSync(fd, buf, first, (1 << 17) - first, null);
    const head = [...buf.subarray(0, first + more)];
    const at = new Uint8Array(8);
    const positioned = files.readSync(fd, at, 0, 8, 5);
    const stat = files.fstatSync(fd);
    return { head, at: [...at.subarray(0, positioned)], size: stat.size, file: stat.isFile() };
  } catch {
    return "throws";
  } finally {
    if (fd !== -1) files.closeSync(fd);
  }
}

Deno.test(linuxTest({
  name: "libc reads give what node:fs gives: files, empty, large, a directory, a FIFO, missing",
  async fn() {
    await using dir = await tempDir();
    const lib = Deno.dlopen("libc.so.6", LIBC_FS_SYMBOLS);
    const libc = libcSummaryFs(lib.symbols);
    try {
      await Deno.writeTextFile(`${dir.path}/small.txt`, "hello\nwörld\n");
      await Deno.writeFile(`${dir.path}/empty.txt`, new Uint8Array(0));
      const big = new Uint8Array(100_000).map((_, i) => (i * 7) % 251);
      await Deno.writeFile(`${dir.path}/big.bin`, big);
      await Deno.mkdir(`${dir.path}/sub`);
      await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe`] }).output();
      await Deno.writeTextFile(`${dir.path}/ünï cödé name.txt`, "named\n");
      const names = [
        "small.txt",
        "empty.txt",
        "big.bin",
        "sub",
        "pipe",
        "missing",
        "ünï cödé name.txt",
      ];
      for (const name of names) {
        const path = `${dir.path}/${name}`;
        assertEquals(probe(libc, path), probe(fs, path), name);
      }
      // Not vacuous: the files read, the directory and the missing name throw.
      assertEquals(
        names.map((name) => typeof probe(libc, `${dir.path}/${name}`)),
        ["object", "object", "object", "string", "string", "string", "object"],
      );
      // A name that is not UTF-8 text is left to the backend, as scanFile leaves it.
      assertEquals(probe(libc, `${dir.path}/\ud800.txt`), "throws");
      // The listing's head summary is the same through either.
      const head = new Uint8Array(4096);
      for (const name of ["small.txt", "big.bin", "empty.txt"]) {
        const path = `${dir.path}/${name}`;
        assertEquals(
          quickSummary(path, head, 4096, libc, summarizeHead),
          quickSummary(path, head, 4096, fs, summarizeHead),
          name,
        );
      }
    } finally {
      lib.close();
    }
  },
}));
