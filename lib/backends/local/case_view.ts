// The local disk's side of the case probe (lib/backends/case_probe.ts): the first names of a
// directory and lstat identities (dev:ino), so a huge folder is never listed to the end.

import type { ProbeLookup, ProbeView } from "../case_probe.ts";
import { hasRawBytes } from "../../core/path/path_quote.ts";

/** Names read from a directory before the probe works with what it has. */
const NAMES_READ = 256;

/** Lookups on the local disk, as the case probe needs them. */
export const localCaseView: ProbeView = {
  async names(dir) {
    const names: string[] = [];
    // A name that is not UTF-8 reads back lossily: it could not be looked up again.
    if (hasRawBytes(dir)) return { names, complete: false };
    for await (const entry of Deno.readDir(dir)) {
      if (names.length >= NAMES_READ) return { names, complete: false };
      if (!entry.name.includes("\uFFFD")) names.push(entry.name);
    }
    return { names, complete: true };
  },
  async lookup(path): Promise<ProbeLookup> {
    try {
      const info = await Deno.lstat(path);
      return {
        ...(info.ino !== null && info.dev !== null && { id: `${info.dev}:${info.ino}` }),
        isDir: info.isDirectory,
        ...(info.nlink !== null && { links: info.nlink }),
      };
    } catch (e) {
      return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory
        ? "missing"
        : "error";
    }
  },
};
