// The local ContentScanner as the services hold it: the worker pool (parallel_scan.ts, with the
// search matchers and re2js) is imported on the first listing or search, which awaits `ready()`
// (ops/view.ts), not when the server starts: a server whose calls only view files never loads it
// (issue 26).

import type {
  ContentScanner,
  ScanRequest,
  ScanRun,
  SummaryRun,
} from "../../ops/ports/worker_pool.ts";
import type { BeneathConfig } from "./beneath_fs.ts";
import type { ParallelScanner } from "./parallel_scan.ts";
import { onFirstUse } from "../../core/first_use.ts";

export class LazyScanner implements ContentScanner {
  readonly backendId = "local";
  private scanner: ParallelScanner | undefined;
  private closed = false;
  // A load that fails (no descriptor free) is not kept: the next ready() loads again.
  private readonly load = onFirstUse("scanner", async () => {
    const { ParallelScanner } = await import("./parallel_scan.ts");
    this.scanner = new ParallelScanner(undefined, this.confined);
    if (this.closed) void this.scanner.close();
  });

  /** `confined`: as ParallelScanner's (the allowed directories on a confined server). */
  constructor(private readonly confined: () => BeneathConfig | null = () => null) {}

  /** The pool, built on the first call; one built after close is closed at once (it starts none). */
  ready(): Promise<void> {
    return this.load();
  }

  open(request: ScanRequest, maxBytes: number): ScanRun {
    return this.loaded().open(request, maxBytes);
  }

  openSummaries(headBytes: number): SummaryRun | null {
    return this.loaded().openSummaries(headBytes);
  }

  close(): Promise<void> {
    this.closed = true;
    return this.scanner?.close() ?? Promise.resolve();
  }

  private loaded(): ParallelScanner {
    if (!this.scanner) throw new Error("LazyScanner: await ready() before the first scan");
    return this.scanner;
  }
}
