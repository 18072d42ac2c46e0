// Lines rendered in an edit failure's report count as shown, with their full-content
// fingerprints: a report must not weaken the check that catches a line that changed but kept its
// 8-bit hash, and ids taken from a report must work for the retry.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../_assert.ts";
import { AnchorError } from "../../../lib/core/errors.ts";
import { formatLineId, hashLine } from "../../../lib/core/edit/line_id.ts";
import { runBatchEdit } from "../../../lib/ops/edit/batch_edit.ts";
import { viewText } from "../_view_text.ts";
import { asText, editEnv } from "./_env.ts";

/** A line different from `line` with the same 8-bit hash. */
function sameHashAs(line: string): string {
  for (let i = 0;; i++) {
    const other = `${line} ${i}`;
    if (hashLine(other) === hashLine(line)) return other;
  }
}

async function rejected(p: Promise<unknown>): Promise<AnchorError> {
  const e = await assertRejects(() => p);
  assert(e instanceof AnchorError, String(e));
  return e;
}

Deno.test("a stale-id report does not hide a later same-hash change inside a range", async () => {
  const env = editEnv({ "/f.txt": "a\nb\nc\nd\ne\n" });
  await env.view("/f.txt");
  const wrongHash = ((hashLine("c") + 1) % 256).toString(16).padStart(2, "0");
  // The report renders lines 1-5 again (same content as viewed).
  const report = await rejected(
    runBatchEdit(env.services, env.session, {
      path: "/f.txt",
      operations: [{ op: "replace", start: `3:${wrongHash}`, content: "x" }],
    }),
  );
  assertEquals(report.code, "STALE_LINE_ID");
  assertStringIncludes(report.detail!, formatLineId(3, "c") + "|c");
  // Another program changes line 3 to content with the same 8-bit hash.
  const twin = sameHashAs("c");
  await env.disk.writeFileAtomic("/f.txt", new TextEncoder().encode(`a\nb\n${twin}\nd\ne\n`), {});
  const refused = await rejected(
    runBatchEdit(env.services, env.session, {
      path: "/f.txt",
      operations: [{
        op: "replace",
        start: formatLineId(2, "b"),
        end: formatLineId(4, "d"),
        content: "B\nC\nD",
      }],
    }),
  );
  assertEquals(refused.code, "STALE_LINE_ID");
  assertEquals(await env.text("/f.txt"), `a\nb\n${twin}\nd\ne\n`);
});

Deno.test("ids from a stale-id report work for the retry, also for lines with a lone CR", async () => {
  const env = editEnv({ "/f.txt": "one\ntwo\rmid\nthree\nfour\n" });
  await env.view("/f.txt");
  await env.disk.writeFileAtomic(
    "/f.txt",
    new TextEncoder().encode("zero\none\ntwo\rmid\nthree\nfour\n"),
    {},
  );
  const report = await rejected(
    runBatchEdit(env.services, env.session, {
      path: "/f.txt",
      operations: [{ op: "replace", start: formatLineId(2, "two\rmid"), content: "x" }],
    }),
  );
  assertEquals(report.code, "STALE_LINE_ID");
  // Lines 2-4 now hold one, two\rmid, three; the report rendered them with fresh ids.
  const result = await asText(runBatchEdit(env.services, env.session, {
    path: "/f.txt",
    operations: [{
      op: "replace",
      start: formatLineId(2, "one"),
      end: formatLineId(4, "three"),
      content: "ONE\nTWO\nTHREE",
    }],
  }));
  assertStringIncludes(result, "batch_edit, 1 operation");
  assertEquals(await env.text("/f.txt"), "zero\nONE\nTWO\nTHREE\nfour\n");
});

Deno.test("ids from a view's stale-id report work in batch_edit without another view", async () => {
  const env = editEnv({ "/f.txt": Array.from({ length: 300 }, (_, i) => `l${i + 1}\n`).join("") });
  const locations = env.services.locations;
  await viewText(locations, env.session, { path: "/f.txt", start: 1, end: 10 });
  const wrong = ((hashLine("l200") + 1) % 256).toString(16).padStart(2, "0");
  await assertRejects(() =>
    viewText(locations, env.session, { path: "/f.txt", start: `200:${wrong}` })
  );
  const result = await asText(runBatchEdit(env.services, env.session, {
    path: "/f.txt",
    operations: [{
      op: "replace",
      start: formatLineId(199, "l199"),
      end: formatLineId(201, "l201"),
      content: "X",
    }],
  }));
  assertStringIncludes(result, "3 lines removed, 1 line added");
});

Deno.test("an id from a view report's 'is now at' list works in batch_edit", async () => {
  const env = editEnv({ "/f.txt": Array.from({ length: 300 }, (_, i) => `l${i + 1}\n`).join("") });
  const locations = env.services.locations;
  await viewText(locations, env.session, { path: "/f.txt", start: 1, end: 10 });
  // An id whose hash is some other line's: the report offers that line ("is now at").
  const far = formatLineId(250, "l250");
  const wrong = `5:${far.split(":")[1]}`;
  const error = await rejected(viewText(locations, env.session, { path: "/f.txt", start: wrong }));
  const offered = /is now at: ([0-9]+:[0-9a-f]{2})\|/.exec(error.detail!)![1]!;
  const result = await asText(runBatchEdit(env.services, env.session, {
    path: "/f.txt",
    operations: [{ op: "replace", start: offered, content: "X" }],
  }));
  assertStringIncludes(result, "1 line removed, 1 line added");
});
