// Listings with the worker pool (parallel_scan.ts) on a real tree: the workers start after the
// first listing, and stopped or cancelled workers leave the same rows as none.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir, writeTree } from "../../_harness.ts";
import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { ParallelScanner, WARM_DELAY_MS } from "../../../lib/backends/local/parallel_scan.ts";
import { Budget } from "../../../lib/ops/budget.ts";
import type { FileBackend } from "../../../lib/ops/ports/file_backend.ts";
import type { SummaryHelper, SummaryRun } from "../../../lib/ops/ports/worker_pool.ts";
import { LIST_HEAD_BYTES } from "../../../lib/ops/tree/list_dir.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { createSession } from "../../../lib/ops/session.ts";
import type { ViewArgs } from "../../../lib/ops/view.ts";
import { viewText } from "../../ops/_view_text.ts";
import { needing } from "../../_requires.ts";

const needsPosixFs = needing("posix-fs");

/** More files than the listing shows (so the count past the rows runs too), of every kind. */
function tree(): Record<string, string | Uint8Array> {
  const exact = new Uint8Array(LIST_HEAD_BYTES).fill(0x61);
  exact[100] = 10;
  const files: Record<string, string | Uint8Array> = {
    "a/bin.dat": new Uint8Array([1, 2, 0, 3]),
    "a/crlf.txt": "one\r\ntwo\r\n",
    "a/empty.txt": "",
    "a/exact.txt": exact,
    "a/big.log": "some text\n".repeat(60_000),
    "a/utf16.txt": new Uint8Array([0xff, 0xfe, 0x61, 0, 0x0a, 0, 0x62, 0]),
    "a/.hidden": "not listed\n",
    ".gitignore": "ignored/\n",
    "ignored/x.txt": "never listed\n",
  };
  for (let i = 0; i < 1300; i++) {
    files[`d${i % 4}/f${String(i).padStart(4, "0")}.ts`] = `line\n`.repeat(i % 9) +
      (i % 7 ? "" : "x");
  }
  return files;
}

/** The local disk, with `change` run on the disk right after the walk read `dir` (a race). */
function racing(dir: string, change: () => void): FileBackend {
  const local = new LocalBackend();
  return Object.assign(Object.create(local), {
    async readDir(path: string) {
      const entries = await local.readDir(path);
      if (path === dir) change();
      return entries;
    },
  });
}

/** A helper that counts the batches its workers answered (to show the worker path ran). */
function counting(scanner: ParallelScanner): SummaryHelper & { answered: number } {
  const helper = {
    backendId: scanner.backendId,
    answered: 0,
    openSummaries(headBytes: number): SummaryRun | null {
      const run = scanner.openSummaries(headBytes);
      if (!run) return null;
      return {
        ...run,
        answer: async (k: number) => {
          const answer = await run.answer(k);
          if (answer) helper.answered++;
          return answer;
        },
      };
    },
  };
  return helper;
}

/**
 * Lists until a worker has answered a batch (each text equal to `expected`): a worker that is
 * still loading its module is never waited for, so on a busy machine the first listings may make
 * every batch themselves. Fails if none of 40 tries, 50 ms apart, got a worker's answer.
 */
async function untilAnswered(
  view: () => Promise<string>,
  helper: { answered: number },
  expected: string,
  what: string,
): Promise<void> {
  for (let i = 0; i < 40 && helper.answered === 0; i++) {
    assertEquals(await view(), expected, what);
    if (helper.answered === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert(helper.answered > 0, `${what}: no batch came from a worker`);
}

function lister(backend: FileBackend, root: string) {
  const locations = new Locations(backend);
  const session = createSession(locations.localAt(root));
  return (args: ViewArgs, scanner?: SummaryHelper, budget?: Budget) =>
    viewText(locations, session, args, {
      ...(scanner ? { scanner: scanner as ParallelScanner } : {}),
      ...(budget ? { budget } : {}),
    });
}

Deno.test(needsPosixFs(
  "a listing read on a worker is the text read on its own thread, files changed mid-walk included",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, tree());
    const d1 = `${dir.path}/d1`;
    const fifo = `${d1}/f0001.ts`;
    const gone = `${d1}/f0005.ts`;
    const turned = `${d1}/f0009.ts`;
    // After d1 is read: a file becomes a FIFO, one is deleted, one becomes a directory.
    const backend = racing(d1, () => {
      Deno.removeSync(fifo);
      new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
      Deno.removeSync(gone);
      Deno.removeSync(turned);
      Deno.mkdirSync(turned);
    });
    const restore = async () => {
      for (const p of [fifo, gone, turned]) await Deno.remove(p).catch(() => {});
      await writeTree(d1, { "f0001.ts": "a\n", "f0005.ts": "b\n", "f0009.ts": "c\n" });
    };
    const view = lister(backend, dir.path);
    const scanner = new ParallelScanner(1);
    try {
      assert(scanner.warm());
      const helper = counting(scanner);
      for (
        const args of [{ path: "." }, { path: "d1" }, { path: ".", max_depth: 2 }] as ViewArgs[]
      ) {
        await restore();
        const alone = await view(args);
        await restore();
        const helped = await view(args, helper);
        assertEquals(helped, alone, JSON.stringify(args));
      }
      await restore();
      const whole = await view({ path: "." });
      await untilAnswered(
        async () => {
          await restore();
          return await view({ path: "." }, helper);
        },
        helper,
        whole,
        "the warm worker",
      );
      await restore();
      const text = await view({ path: "d1" }, helper);
      assertStringIncludes(text, "\nf0001.ts\tunreadable: ");
      assertStringIncludes(text, "\nf0005.ts\tunreadable: ");
      assertStringIncludes(text, "\nf0009.ts\tunreadable: ");
      await restore();
      const all = await view({ path: "." }, helper);
      assertStringIncludes(all, "1,306 files");
      assertStringIncludes(all, "a/bin.dat\tbinary\t4 bytes");
      assertStringIncludes(all, "a/exact.txt\t2 lines\t~65,536 tokens");
    } finally {
      await scanner.close();
    }
  },
));

Deno.test("a listing does not start the workers; one starts soon after for the next one", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, tree());
  const view = lister(new LocalBackend(), dir.path);
  const scanner = new ParallelScanner(2);
  try {
    const helper = counting(scanner);
    const alone = await view({ path: "." });
    assertEquals(await view({ path: "." }, helper), alone);
    assertEquals(helper.answered, 0);
    await new Promise((resolve) => setTimeout(resolve, WARM_DELAY_MS * 3));
    assertEquals(scanner.workerCount, 1);
    await untilAnswered(() => view({ path: "." }, helper), helper, alone, "the warm pool");
    // A search tops the pool up to its size.
    await view({ path: ".", content: "line" }, scanner);
    assertEquals(scanner.workerCount, 2);
  } finally {
    await scanner.close();
  }
  assertEquals(scanner.workerCount, 0);
});

Deno.test("workers stopped in the middle of a listing leave their batches to the listing", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, tree());
  const scanner = new ParallelScanner(1);
  try {
    const alone = await lister(new LocalBackend(), dir.path)({ path: "." });
    assert(scanner.warm());
    // d2 is read after d0 and d1 are handed out: the pool then stops, its batches unanswered.
    const view = lister(racing(`${dir.path}/d2`, () => void scanner.close()), dir.path);
    assertEquals(await view({ path: "." }, scanner), alone);
    assertEquals(scanner.workerCount, 0);
    // Closed, it no longer helps listings and starts no workers for them.
    assertEquals(scanner.openSummaries(LIST_HEAD_BYTES), null);
    await new Promise((resolve) => setTimeout(resolve, WARM_DELAY_MS * 2));
    assertEquals(scanner.workerCount, 0);
  } finally {
    await scanner.close();
  }
});

Deno.test("a cancelled listing stops the same way with or without the workers", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, tree());
  const view = lister(new LocalBackend(), dir.path);
  const scanner = new ParallelScanner(1);
  try {
    assert(scanner.warm());
    const cancelled = () => {
      const abort = new AbortController();
      abort.abort();
      return new Budget(abort.signal);
    };
    const alone = await view({ path: "." }, undefined, cancelled());
    assertStringIncludes(
      alone,
      "The call was cancelled: the listing stopped early and is partial.",
    );
    assertEquals(await view({ path: "." }, scanner, cancelled()), alone);
  } finally {
    await scanner.close();
  }
});
