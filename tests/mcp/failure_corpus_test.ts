// Failures shown whole, through the real server: each failing run of the corpus (real runner
// output, tests/fixtures/failure_corpus/) replayed as a command; its first result must hold every
// failure's name, expected value, actual value and location, and stay small.

import { assert, assertEquals, assertNotIncludes, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { startJobsServer } from "./_jobs_helpers.ts";
import { needing } from "../_requires.ts";
import {
  loadCorpus,
  missingParts,
  replayCommand,
} from "../../scripts/bench/failure_excerpt_bench.ts";

const needs = needing("bash");
const CORPUS = `${REPO_ROOT}/tests/fixtures/failure_corpus`;

Deno.test(
  needs(
    "the first result of every failing run in the corpus holds each failure's name, expected, actual and location",
    async () => {
      await using s = await startJobsServer("v1", { window: 30 });
      const corpus = loadCorpus();
      for (const e of corpus) await Deno.copyFile(`${CORPUS}/${e.file}`, `${s.dir}/${e.file}`);
      const missing: string[] = [];
      for (const e of corpus) {
        const r = await s.server.call("shell", { command: replayCommand(e.file, e.exit) });
        assertEquals(r.isError, true, `${e.file}: ${r.text.slice(0, 200)}`);
        const lacks = missingParts(r.text, e);
        if (lacks.length > 0) missing.push(`${e.file}: ${lacks.join(", ")}`);
      }
      assertEquals(missing, []);
    },
  ),
);

Deno.test(
  needs(
    "a tape failure in the middle of a long run keeps its 21-line YAML block; a passing RangeError assertion is no failure",
    async () => {
      await using s = await startJobsServer("v2", { window: 30 });
      await Deno.copyFile(`${CORPUS}/tape.txt`, `${s.dir}/tape.txt`);
      const r = await s.server.call("shell", { command: replayCommand("tape.txt", 1) });
      assertEquals(r.isError, true, r.text);
      // The deepEqual's block (lines 222-242) is whole: expected, actual and at, its stack cut.
      assertStringIncludes(
        r.text,
        "not ok 202 merges nested arrays\n  ---\n    operator: deepEqual\n    expected: |-\n" +
          "      { a: [ 1, 2, { b: 4, c: 'x' } ] }\n    actual: |-\n" +
          "      { a: [ 1, 2, { b: 3, c: 'x' } ] }\n    at: <anonymous> (/home/dev/calc/tape_test.js:20:7)",
      );
      assertNotIncludes(r.text, "node_modules/tape/lib/test.js");
      assertNotIncludes(r.text, "ok 203 Should throw RangeError");
      // The tail keeps the summary, not kilobytes of passing cases.
      assertStringIncludes(r.text, "# fail  3");
      assertStringIncludes(r.text, "passing test lines]");
      const bytes = new TextEncoder().encode(JSON.stringify(r.raw.content)).length;
      assert(bytes <= 4096, `${bytes} bytes for 3 failures among 401 passes`);
    },
  ),
);
