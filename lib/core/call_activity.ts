// Whether this process is serving a tool call, and since when it has not been: what decides
// that housekeeping (a full garbage collection, backends/local/heap.ts) runs in time no call
// uses. Process-wide, as the heap is; every tool call of every session and transport counts.

let running = 0;
/** When the last call ended (process start before any). */
let lastEnd = performance.now();

/** A tool call began (mcp/render.ts runTool). */
export function callStarted(): void {
  running++;
}

/** A tool call ended, however it ended. */
export function callEnded(): void {
  running = Math.max(0, running - 1);
  lastEnd = performance.now();
}

/** Milliseconds since the last call ended; 0 while one runs. */
export function quietForMs(now = performance.now()): number {
  return running > 0 ? 0 : now - lastEnd;
}
