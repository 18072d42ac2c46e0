// Rung 1 of the str_replace ladder: old_text exactly as sent. One match, or every match with
// replace_all; several without it is AMBIGUOUS_MATCH.

import { ambiguous } from "./ambiguous.ts";
import { findAll } from "./lf_text.ts";
import type { RungInput, RungMatch } from "./rung.ts";

export function matchExact(input: RungInput): RungMatch | undefined {
  const { doc, lf, path, oldText, newText } = input;
  // replace_all replaces every match; counting stops at 10,000 only to report an ambiguity.
  const exact = findAll(lf.text, oldText, input.replaceAll ? Infinity : undefined);
  if (exact.length === 1 || (exact.length > 1 && input.replaceAll)) {
    return {
      tier: "exact",
      edits: exact.map((at) => ({ from: at, to: at + oldText.length, replacement: newText })),
      notes: [],
    };
  }
  if (exact.length > 1) throw ambiguous(path, lf, doc, exact, oldText.length, "exactly");
  return undefined;
}
