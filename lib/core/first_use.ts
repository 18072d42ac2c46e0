// Modules only some calls need load on the first of those calls, not at start (issue 26). That
// load reads files (each module's cached emit, npm packages' package.json), so it can meet a
// process with no file descriptor left. Two things then go wrong in Deno 2.9.6, and this is
// where they are kept from reaching a call:
// - A cached emit it cannot read, Deno transpiles the module again in-process, and swc's stack
//   check (stacker 0.1.15) asserts that reading /proc/self/maps succeeds: the whole process
//   panics. So every load runs inside `setLoadGuard`'s guard: the composition root installs one
//   that frees the descriptors held back for loads (spare_descriptors.ts) and refuses the load
//   while too few are free; the loader reads one file at a time (strace: open, read, close on
//   the main thread), so a few spare is enough.
// - A failed import() is kept by Deno for a module it had to read at run time (the same
//   specifier fails again once descriptors are back), not for one already in the start-up graph
//   (every literal import() here) nor for an npm package's resolution. Our own memo forgets a
//   failure, so the next call tries again.
// The bundle (scripts/release/bundle.ts) keeps its chunks out of the start-up graph: there each
// chunk's import() of another is a call of `lateImport` (installed as LATE_IMPORT_GLOBAL), which
// Deno reads only when it runs (the graph held every chunk's text for the process's life, 2 MB
// of an idle server), and which imports a module that failed under a new URL the next time, so
// Deno's kept failure does not come back. What a new URL cannot reach: a chunk that the failed one
// imports statically, if its own read failed. The guard frees its spare descriptors just before
// the load, so that takes another thread using up all of them in the milliseconds the load reads.

import { AnchorError, outOfFileHandles } from "./errors.ts";

/** Runs a module load; throws (an error with `code` EMFILE or ENFILE) instead of loading when a
 * load now would fail. */
type LoadGuard = <T>(load: () => Promise<T>) => Promise<T>;

let loadGuard: LoadGuard = (load) => load();

/** Installs the guard every first load runs in (process-wide, as Deno's module map is). */
export function setLoadGuard(guard: LoadGuard): void {
  loadGuard = guard;
}

/**
 * `load` run by the first call of the function returned, its result shared by every later
 * call; a failure is thrown to the calls that waited for it, as an AnchorError naming `what`
 * (e.g. "search"), and not kept: the next call loads again.
 */
export function onFirstUse<T>(what: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    // A guard that throws at once fails the call the same way (an async function's rejection).
    loading ??= (async () => await loadGuard(load))().catch((e) => {
      loading = undefined;
      throw moduleLoadError(what, e);
    });
}

/** An out-of-descriptors error as Deno's import() words it (no `code`), or as a check throws. */
function descriptorCode(e: unknown): "EMFILE" | "ENFILE" | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "EMFILE" || code === "ENFILE") return code;
  const text = e instanceof Error ? e.message : String(e);
  if (/Too many open files in system|os error 23\b/.test(text)) return "ENFILE";
  if (/Too many open files|os error 24\b/.test(text)) return "EMFILE";
  return undefined;
}

function moduleLoadError(what: string, e: unknown): AnchorError {
  const failed = `anchorfs could not load its ${what} module`;
  const code = descriptorCode(e);
  if (code) return outOfFileHandles(code, failed);
  // Deno's own sentence may end in a period already: one full stop, not two.
  const message = (e instanceof Error ? e.message.split("\n")[0]! : String(e)).replace(/\.+$/, "");
  return new AnchorError({
    code: "INTERNAL",
    message: `${failed}: ${message}. Nothing was read or changed.`,
    hint: "The arguments are fine: retry the same call (a load that failed is tried again). If " +
      "it keeps failing, the installation is damaged: ask the user to reinstall anchorfs.",
    fault: "internal",
    cause: e,
  });
}

// Exported for the release scripts (scripts/release/bundle.ts) and tests.
/**
 * The global through which the bundle's chunks import another chunk on first use (bundle.ts
 * writes each chunk's import() of a sibling file as a call of it, with that file's absolute URL).
 */
export const LATE_IMPORT_GLOBAL = "__anchorfsLateImport";

/** How many times each chunk's import failed: the next try asks for `?retry=N`. */
const lateFailures = new Map<string, number>();

// Exported for tests (the bundle's chunks call it through LATE_IMPORT_GLOBAL).
/**
 * Imports the module at `href` (an absolute URL). Deno keeps a failed import of a module read at
 * run time, and the same URL fails again once descriptors are back; a URL with a query is
 * another module to Deno, and its own imports resolve as the plain URL's (the query is dropped).
 */
export function lateImport(href: string): Promise<unknown> {
  const failed = lateFailures.get(href) ?? 0;
  return import(failed === 0 ? href : `${href}?retry=${failed}`).catch((e) => {
    lateFailures.set(href, failed + 1);
    throw e;
  });
}

(globalThis as Record<string, unknown>)[LATE_IMPORT_GLOBAL] = lateImport;
