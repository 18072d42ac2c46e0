// Logging for mcp mode: stderr only, because stdout carries the protocol.

const encoder = new TextEncoder();

export function logError(what: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  logLine(`anchorfs: ${what}: ${detail}`);
}

export function logLine(line: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(line.endsWith("\n") ? line : `${line}\n`));
  } catch {
    // stderr closed: nothing else to tell.
  }
}
