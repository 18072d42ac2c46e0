// A string that shares no memory with the one it was cut from. V8 makes a slice of 13 or more
// characters (`slice`, `substring`, a `split` line) a view into its parent, which it keeps alive
// whole: a line kept from a 15 MB file kept all 15 MB. Long-lived records of a few lines copy
// them with this. Pure.

/**
 * A copy of `text` with memory of its own. The concatenation is flattened into a new string
 * before it is sliced, so the slice's parent is that copy, not `text`'s.
 */
export function ownString(text: string): string {
  return (" " + text).slice(1);
}
