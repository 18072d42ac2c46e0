// Where the search workers (parallel_scan.ts) import re2js from. A worker started from inline
// code cannot resolve the bare "re2js" in a bundle (dist/, the npm package, a compiled binary),
// so the bundle ships re2js as its own file beside the core file and its chunks (one folder); from
// source the package is imported by name. The loader's source text runs inside each worker.

/**
 * re2js bundled on its own, written beside the bundle's core file and its chunks
 * (scripts/release/bundle.ts).
 * Exported for tests (and the release scripts).
 */
export const RE2_MODULE_FILE = "anchorfs_re2.js";

/**
 * The modules to try, in order: the file beside this code (in a bundle, the chunk holding it), the
 * package. Only a local file is tried beside: run from a URL (JSR) there is no such file, and
 * asking for it would cost a request per worker. Exported for tests.
 */
export function re2ModuleSpecifiers(): string[] {
  const beside = new URL(`./${RE2_MODULE_FILE}`, import.meta.url);
  return [...(beside.protocol === "file:" ? [beside.href] : []), "re2js"];
}

/**
 * re2js's RE2JS from the first of `specifiers` that imports; null (said once on stderr, with
 * why) when none does: the worker's caller then matches RE2 regexes on the main thread.
 * Self-contained: its source text is a worker's.
 */
async function importRe2(specifiers: string[]): Promise<unknown> {
  const failures: string[] = [];
  for (const specifier of specifiers) {
    try {
      return (await import(specifier)).RE2JS;
    } catch (e) {
      failures.push(`${specifier}: ${e instanceof Error ? e.message.split("\n")[0] : e}`);
    }
  }
  Deno.stderr.writeSync(
    new TextEncoder().encode(
      `anchorfs: a search worker could not import re2js (${failures.join("; ")}); ` +
        "RE2 regexes are matched on the main thread\n",
    ),
  );
  return null;
}

/** The worker's declarations: `loadRe2()` gives RE2JS (or null), imported once per worker. */
export function re2LoaderSource(): string {
  return `${importRe2}
let re2Loaded;
const loadRe2 = () => (re2Loaded ??= ${importRe2.name}(${JSON.stringify(re2ModuleSpecifiers())}));`;
}
