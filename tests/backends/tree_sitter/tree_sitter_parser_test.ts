// The outline's worker through the real parser: started on the first outline only, ended when
// idle (its wasm memory with it), at most maxGrammars grammars resident, a size cap, a stop that
// reaches a running parse, and a wall deadline that ends a worker stuck in a parse.

import { assertEquals, assertRejects } from "../../_assert.ts";
import { TreeSitterParser } from "../../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import { LANGUAGES } from "../../../lib/core/outline/languages.ts";
import { ParseTimeout } from "../../../lib/ops/ports/syntax_parser.ts";
import { REPO_ROOT } from "../../_harness.ts";

const TS = LANGUAGES.typescript!;
const small = "export class A {\n  b(): void {}\n}\n";

/** Resolves once `done()` holds, asking every few milliseconds (no time limit of its own). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

Deno.test("the parser starts no worker before the first outline, and ends it when idle", async () => {
  using parser = disposable(new TreeSitterParser({ idleMs: 20 }));
  assertEquals(parser.running, false);
  assertEquals(parser.stats.started, 0);
  const outline = await parser.outline(small, TS);
  assertEquals(outline?.declarations.map((d) => d.qualified), ["A"]);
  assertEquals(parser.running, true);
  assertEquals(parser.grammars, ["typescript"]);
  await until(() => !parser.running);
  assertEquals(parser.stats, { started: 1, swapped: 0, timedOut: 0, idled: 1 });
  assertEquals(parser.grammars, []);
  // The next outline starts a fresh worker, which loads the runtime again.
  assertEquals((await parser.outline(small, TS))?.declarations.length, 1);
  assertEquals(parser.stats.started, 2);
});

Deno.test("at most maxGrammars grammars are resident: one more starts a fresh worker", async () => {
  using parser = disposable(new TreeSitterParser({ maxGrammars: 2 }));
  await parser.outline(small, TS);
  await parser.outline("def f():\n    pass\n", LANGUAGES.python!);
  await parser.outline(small, TS); // used again: python is now the least recently used
  assertEquals(parser.grammars, ["python", "typescript"]);
  assertEquals(parser.stats.started, 1);
  const go = await parser.outline("package a\n\nfunc F() {}\n", LANGUAGES.go!);
  assertEquals(go?.declarations.map((d) => d.name), ["F"]);
  assertEquals(parser.grammars, ["go"]);
  assertEquals(parser.stats.started, 2);
  assertEquals(parser.stats.swapped, 1);
});

Deno.test("a text past maxChars is refused before it reaches a worker", async () => {
  using parser = disposable(new TreeSitterParser({ maxChars: 10 }));
  const error = await assertRejects(() => parser.outline(small, TS));
  assertEquals((error as { code?: string }).code, "FILE_TOO_LARGE");
  assertEquals(parser.stats.started, 0);
});

Deno.test("a stop asked while the worker parses ends that parse; the worker stays for the next", async () => {
  using parser = disposable(new TreeSitterParser());
  const big = (await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.ts`)).repeat(
    400,
  );
  let asked = 0;
  // Yes from the second question on: the first is asked before the parse is handed over.
  const stopped = await parser.outline(big, TS, () => ++asked > 1);
  assertEquals(stopped, null);
  assertEquals(parser.running, true);
  assertEquals((await parser.outline(small, TS))?.declarations.length, 1);
  assertEquals(parser.stats.started, 1);
});

Deno.test("a parse waiting behind another leaves the queue as soon as it is stopped", async () => {
  using parser = disposable(new TreeSitterParser());
  const big = (await Deno.readTextFile(`${REPO_ROOT}/tests/fixtures/outline/sample.ts`)).repeat(
    400,
  );
  let stop = false;
  const order: string[] = [];
  const running = parser.outline(big, TS).then(() => order.push("running"));
  const waiting = parser.outline(small, TS, () => stop).then((r) => order.push(`waiting ${r}`));
  stop = true;
  await Promise.all([running, waiting]);
  assertEquals(order, ["waiting null", "running"]);
});

Deno.test("a parse past the deadline ends its worker and rejects with ParseTimeout", async () => {
  // 1 ms: starting a worker and loading the runtime alone take longer.
  using parser = disposable(new TreeSitterParser({ deadlineMs: 1 }));
  const error = await assertRejects(() => parser.outline(small, TS));
  assertEquals(error instanceof ParseTimeout && error.deadlineMs, 1);
  assertEquals(parser.running, false);
  assertEquals(parser.stats.timedOut, 1);
});

Deno.test("close() ends the worker; a parse waiting behind another gives null", async () => {
  const parser = new TreeSitterParser();
  const first = parser.outline(small, TS);
  const second = parser.outline(small, LANGUAGES.python!);
  parser.close();
  assertEquals(await first, null);
  assertEquals(await second, null);
  assertEquals(parser.running, false);
});

function disposable(parser: TreeSitterParser): TreeSitterParser & Disposable {
  return Object.assign(parser, { [Symbol.dispose]: () => parser.close() });
}
