// onFirstUse (lib/core/first_use.ts): a module loaded by the first call that needs it, shared by
// the calls after; a failed load is the waiting calls' error, named and worded for what happened
// (no descriptor free: EMFILE as Deno's import() words it, or as the load guard throws it), and
// is not kept, so the next call loads again; the load guard runs each load, not after one
// succeeded.

import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";
import { formatError, isAnchorError } from "../../lib/core/errors.ts";
import {
  LATE_IMPORT_GLOBAL,
  lateImport,
  onFirstUse,
  setLoadGuard,
} from "../../lib/core/first_use.ts";
import { tempDir } from "../_harness.ts";

/** Deno 2.9.6's words for an import() that met EMFILE (no `code` on the error). */
const DENO_EMFILE = new TypeError(
  "Import 'file:///srv/lib/ops/tree/search.ts' failed.\n    0: Too many open files (os error 24)",
);

async function messageOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(() => undefined, (e) => e);
  assert(isAnchorError(e), String(e));
  return formatError(e);
}

Deno.test("a load that fails is the call's error and is not kept: the next call loads again", async () => {
  let loads = 0;
  const load = onFirstUse("search", () => {
    loads++;
    return loads === 1 ? Promise.reject(DENO_EMFILE) : Promise.resolve("module");
  });
  const text = await messageOf(load());
  assertStringIncludes(text, "anchorfs could not load its search module: this server has reached");
  assertStringIncludes(text, "(EMFILE;");
  assertStringIncludes(text, "retry the same call in a moment");
  assertStringIncludes(text, "ulimit -n 4096");
  assertEquals(await load(), "module");
  assertEquals(await load(), "module");
  assertEquals(loads, 2);
});

Deno.test("calls waiting on one load share it, and its failure", async () => {
  let loads = 0;
  let fail = true;
  const load = onFirstUse("listing", async () => {
    loads++;
    await Promise.resolve();
    if (fail) throw new Error("Too many open files in system (os error 23)");
    return 7;
  });
  const both = await Promise.allSettled([load(), load()]);
  assertEquals(loads, 1);
  for (const r of both) {
    assertEquals(r.status, "rejected");
    assertStringIncludes(formatError((r as PromiseRejectedResult).reason), "(ENFILE: every");
  }
  fail = false;
  assertEquals(await Promise.all([load(), load()]), [7, 7]);
  assertEquals(loads, 2);
});

Deno.test("the load guard runs a load, refuses it with its error, and not once loaded", async () => {
  let checks = 0;
  let free = false;
  setLoadGuard((load) => {
    checks++;
    if (!free) throw Object.assign(new Error("Too many open files"), { code: "EMFILE" });
    return load();
  });
  try {
    let loads = 0;
    const load = onFirstUse("edit", () => Promise.resolve(++loads));
    assertStringIncludes(await messageOf(load()), "anchorfs could not load its edit module");
    assertEquals(loads, 0);
    free = true;
    assertEquals(await load(), 1);
    assertEquals(await load(), 1);
    assertEquals(checks, 2);
  } finally {
    setLoadGuard((load) => load());
  }
});

Deno.test("any other load failure names the module and says to retry, then reinstall", async () => {
  const load = onFirstUse("diff", () => Promise.reject(new TypeError("Module not found\n  at x")));
  await assertRejects(load);
  const text = await messageOf(load());
  assertStringIncludes(text, "anchorfs could not load its diff module: Module not found.");
  assertStringIncludes(text, "reinstall anchorfs");
});

Deno.test("a load failure whose own message ends in a period gets one full stop, not two", async () => {
  const load = onFirstUse("ssh2", () => Promise.reject(new TypeError('Module not found "x.js".')));
  const text = await messageOf(load());
  assertStringIncludes(text, 'its ssh2 module: Module not found "x.js". Nothing was read');
  assertEquals(text.includes(".."), false);
});

Deno.test("lateImport: a module that failed to load loads once it can, where a plain import() keeps failing", async () => {
  await using dir = await tempDir();
  const href = new URL(`file://${dir.path}/late.js`).href;
  const plain = new URL(`file://${dir.path}/plain.js`).href;
  // Not there yet: both fail, as a read that met EMFILE does.
  await assertRejects(() => lateImport(href));
  await assertRejects(() => import(plain));
  await Deno.writeTextFile(
    `${dir.path}/late.js`,
    'import { b } from "./b.js";\nexport const a = b;\n',
  );
  await Deno.writeTextFile(`${dir.path}/plain.js`, "export const a = 1;\n");
  await Deno.writeTextFile(`${dir.path}/b.js`, 'export const b = "late";\n');
  // Deno kept the plain URL's failure; lateImport asks for another URL, whose imports resolve
  // beside it as before.
  await assertRejects(() => import(plain));
  const late = await lateImport(href) as { a: string };
  assertEquals(late.a, "late");
  // Loaded once: the same module instance after, not a third copy.
  assertEquals(await lateImport(href), late);
  // The bundle's chunks reach it through the global (scripts/release/bundle.ts deferImports).
  assertEquals((globalThis as Record<string, unknown>)[LATE_IMPORT_GLOBAL], lateImport);
});
