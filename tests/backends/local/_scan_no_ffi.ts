// Run by parallel_scan_test.ts without --allow-ffi: searches the tree at Deno.args[0] for
// Deno.args[1] through real worker threads (which then read through node:fs, not libc) and
// prints the view's text, so the test can compare it with the same search in its own process.

import { LocalBackend } from "../../../lib/backends/local/local_backend.ts";
import { ParallelScanner } from "../../../lib/backends/local/parallel_scan.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { createSession } from "../../../lib/ops/session.ts";
import { viewText } from "../../ops/_view_text.ts";

const [root, content] = Deno.args as [string, string];
const scanner = new ParallelScanner(1);
const locations = new Locations(new LocalBackend());
const text = await viewText(locations, createSession(locations.localAt(root)), {
  path: ".",
  content,
}, { scanner });
await scanner.close();
Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify({ text, inline: scanner.inline })));
