// The one way a size in bytes is written for a reader: "17 bytes", "1.5 KB", "16.0 MB", "2.0 GB"
// (powers of 1024, one decimal). Refusals, listings and search notices all say sizes this way.

import { plural } from "./plural.ts";

/** A size for a reader: exact bytes below 1 KB, else KB, MB or GB with one decimal. */
export function formatSize(n: number): string {
  if (n < 1024) return plural(n, "byte");
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}
