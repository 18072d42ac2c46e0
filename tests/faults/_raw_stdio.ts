// A raw stdio peer for fault tests: spawns the real server (`deno run -A main.ts mcp`) with
// piped stdin/stdout and lets a test write arbitrary bytes and read back every JSON line the
// server writes. No SDK client in between, so malformed input reaches the server unchanged.

import { MAIN_TS, REPO_ROOT, serverEnv } from "../_harness.ts";

export interface RawReply {
  jsonrpc?: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  method?: string;
  params?: unknown;
}

const encoder = new TextEncoder();

export class RawServer implements AsyncDisposable {
  readonly messages: RawReply[] = [];
  /** Lines on stdout that were not JSON (must stay empty: stdout carries only protocol). */
  readonly strayLines: string[] = [];
  stderr = "";
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private waiters: (() => void)[] = [];
  private readonly pumps: Promise<void>[];
  private exited = false;
  readonly status: Promise<Deno.CommandStatus>;

  private constructor(private readonly child: Deno.ChildProcess) {
    this.writer = child.stdin.getWriter();
    this.pumps = [this.pumpStdout(), this.pumpStderr()];
    this.status = child.status.then((s) => {
      this.exited = true;
      this.wake();
      return s;
    });
  }

  /** Starts `main.ts mcp ARGS` (another checkout's main.ts with `mainTs`) and initializes. */
  static async start(
    args: string[] = [],
    options: { cwd?: string; mainTs?: string } = {},
  ): Promise<RawServer> {
    const server = RawServer.spawn(args, options);
    await server.initialize();
    return server;
  }

  /**
   * Starts `main.ts mcp ARGS` and sends nothing; `fileLimit`: its soft and hard limit of open
   * files from the first instant (`prlimit --nofile`, as `ulimit -n` in the shell that starts it).
   */
  static spawn(
    args: string[] = [],
    options: { cwd?: string; mainTs?: string; fileLimit?: number } = {},
  ): RawServer {
    const deno = [Deno.execPath(), "run", "-A", "--quiet", options.mainTs ?? MAIN_TS, "mcp"];
    const limit = options.fileLimit;
    const command = limit === undefined ? deno : ["prlimit", `--nofile=${limit}:${limit}`, ...deno];
    const child = new Deno.Command(command[0]!, {
      args: [...command.slice(1), ...args],
      cwd: options.cwd ?? REPO_ROOT,
      env: serverEnv(),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new RawServer(child);
  }

  get pid(): number {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Writes bytes as they are (add the newline yourself). */
  async write(bytes: Uint8Array | string): Promise<void> {
    await this.writer.write(typeof bytes === "string" ? encoder.encode(bytes) : bytes);
  }

  /** Sends a request on its own line and waits for the reply with its id. */
  async request(
    id: number | string,
    method: string,
    params?: Record<string, unknown>,
    timeoutMs = 60_000,
  ): Promise<RawReply> {
    await this.write(
      `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params && { params }) })}\n`,
    );
    return await this.replyTo(id, 0, timeoutMs);
  }

  /** Waits for the reply carrying `id` (null: an error reply with id null). */
  async replyTo(id: number | string | null, from = 0, timeoutMs = 60_000): Promise<RawReply> {
    return await this.waitFor(
      () => this.messages.slice(from).find((m) => m.id === id && ("result" in m || "error" in m)),
      `the reply to ${JSON.stringify(id)}`,
      timeoutMs,
    );
  }

  /** Waits until `found` returns a value; throws when the server exits or the time is up. */
  async waitFor<T>(found: () => T | undefined, what = "a reply", timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const value = found();
      if (value !== undefined) return value;
      if (this.exited) throw new Error(`the server exited while waiting for ${what}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1000, Math.max(1, deadline - Date.now())));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The server's peak and current resident memory in kB (from /proc). */
  async memoryKb(): Promise<{ peak: number; now: number }> {
    const status = await Deno.readTextFile(`/proc/${this.child.pid}/status`);
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1]);
    return { peak: field("VmHWM"), now: field("VmRSS") };
  }

  async close(): Promise<void> {
    await this.writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, 15_000);
    await this.status;
    clearTimeout(timer);
    await Promise.all(this.pumps);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async initialize(): Promise<void> {
    const reply = await this.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw-fault-test", version: "1.0.0" },
    });
    if (!reply.result) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
    await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async pumpStdout(): Promise<void> {
    let buffer = "";
    for await (const text of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          this.messages.push(JSON.parse(line));
        } catch {
          this.strayLines.push(line);
        }
      }
      this.wake();
    }
  }

  private async pumpStderr(): Promise<void> {
    for await (const text of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      // Keep the last 64 KB: enough to explain a failure.
      this.stderr = (this.stderr + text).slice(-65536);
    }
  }
}
