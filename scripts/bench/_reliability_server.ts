// The reliability benchmark's view of one real server process (`deno run -A main.ts mcp`): raw
// bytes in on stdin, JSON-RPC lines out, and what /proc says about it (alive, VmRSS, VmHWM).
// Every wait has a deadline and `kill()` always ends the process, so no case can hang the bench.

import { MAIN_TS, REPO_ROOT, serverEnv } from "../../tests/_harness.ts";

const enc = new TextEncoder();

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

export interface RawServerOptions {
  /** Extra arguments after `mcp`. */
  args?: string[];
  cwd?: string;
  /** Kill the server when its RSS passes this many MB (protects the shared machine). */
  rssCapMb?: number;
  /** Another checkout's main.ts (for before/after comparisons). */
  mainTs?: string;
  /** V8 flags for the server, as the deno.json tasks and compiled binaries pass them. */
  v8Flags?: string;
}

/** A pause that does not keep the process alive past its use. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Reads one field (kB) of /proc/PID/status; undefined when the process is gone. */
export function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie (PID 1 here does not reap). */
export function processAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

export class RawServer {
  readonly child: Deno.ChildProcess;
  readonly pid: number;
  /** Every message the server wrote, in order. */
  readonly messages: Message[] = [];
  /** Byte length of each stdout line, parallel to `messages`. */
  readonly lineBytes: number[] = [];
  /** Lines on stdout that were not JSON (stdout must carry only protocol messages). */
  readonly junk: string[] = [];
  stderrTail = "";
  exitCode: number | undefined;
  /** Set when the watchdog killed the server for passing the RSS cap. */
  killedForMemory = false;
  peakHwmKb = 0;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private waiters: (() => void)[] = [];
  private nextId = 1;
  private readonly watchdog: ReturnType<typeof setInterval>;
  readonly exited: Promise<void>;

  constructor(options: RawServerOptions = {}) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        ...(options.v8Flags ? [`--v8-flags=${options.v8Flags}`] : []),
        options.mainTs ?? MAIN_TS,
        "mcp",
        ...(options.args ?? []),
      ],
      cwd: options.cwd ?? REPO_ROOT,
      env: serverEnv(),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.pid = this.child.pid;
    this.writer = this.child.stdin.getWriter();
    this.writer.closed.catch(() => {});
    void this.readStdout();
    void this.readStderr();
    this.exited = this.child.status.then((s) => {
      this.exitCode = s.code;
      this.wake();
    });
    const cap = (options.rssCapMb ?? 3000) * 1024;
    this.watchdog = setInterval(() => {
      const hwm = procStatusKb(this.pid, "VmHWM");
      if (hwm !== undefined) this.peakHwmKb = Math.max(this.peakHwmKb, hwm);
      const rss = procStatusKb(this.pid, "VmRSS");
      if (rss !== undefined && rss > cap && !this.killedForMemory) {
        this.killedForMemory = true;
        this.kill();
      }
    }, 50);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private async readStdout(): Promise<void> {
    const dec = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of this.child.stdout) {
        buf += dec.decode(chunk, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() === "") continue;
          try {
            this.messages.push(JSON.parse(line));
            this.lineBytes.push(enc.encode(line).length);
          } catch {
            this.junk.push(line.slice(0, 200));
          }
        }
        this.wake();
      }
    } catch { /* the process died */ }
  }

  private async readStderr(): Promise<void> {
    const dec = new TextDecoder();
    try {
      for await (const chunk of this.child.stderr) {
        this.stderrTail = (this.stderrTail + dec.decode(chunk, { stream: true })).slice(-4000);
      }
    } catch { /* the process died */ }
  }

  get alive(): boolean {
    return this.exitCode === undefined && processAlive(this.pid);
  }

  /** Writes bytes; gives up after `timeoutMs` (a server that stopped reading cannot block us). */
  async send(data: string | Uint8Array, timeoutMs = 10_000): Promise<boolean> {
    const bytes = typeof data === "string" ? enc.encode(data) : data;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        this.writer.write(bytes).then(() => true, () => false),
        new Promise<boolean>((r) => timer = setTimeout(() => r(false), timeoutMs)),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until `pred` holds for a message at index >= from; undefined on deadline or exit. */
  async waitFor(
    pred: (m: Message) => boolean,
    timeoutMs: number,
    from = 0,
  ): Promise<Message | undefined> {
    const deadline = Date.now() + timeoutMs;
    let seen = from;
    while (true) {
      for (; seen < this.messages.length; seen++) {
        if (pred(this.messages[seen]!)) return this.messages[seen];
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.exitCode !== undefined) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        timer = setTimeout(r, Math.min(left, 250));
      });
      clearTimeout(timer);
    }
  }

  newId(): string {
    return `b${this.nextId++}`;
  }

  /** Sends a request and waits for its reply (undefined: no reply before the deadline). */
  async request(
    method: string,
    params: unknown,
    timeoutMs: number,
  ): Promise<Message | undefined> {
    const id = this.newId();
    const from = this.messages.length;
    const ok = await this.send(
      `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`,
      timeoutMs,
    );
    if (!ok) return undefined;
    return await this.waitFor((m) => m.id === id, timeoutMs, from);
  }

  /** A tool call; returns the reply (result or error) or undefined. */
  async call(
    name: string,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<Message | undefined> {
    return await this.request("tools/call", { name, arguments: args }, timeoutMs);
  }

  async initialize(timeoutMs = 30_000): Promise<boolean> {
    const reply = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "reliability-bench", version: "1" },
    }, timeoutMs);
    if (!reply?.result) return false;
    await this.send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    return true;
  }

  async ping(timeoutMs: number): Promise<boolean> {
    return (await this.request("ping", {}, timeoutMs))?.result !== undefined;
  }

  kill(): void {
    try {
      Deno.kill(this.pid, "SIGKILL");
    } catch { /* already gone */ }
  }

  /** Ends the server: stdin closed, then SIGKILL if it has not exited within `graceMs`. */
  async close(graceMs = 3000): Promise<void> {
    await this.writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.exited, new Promise((r) => timer = setTimeout(r, graceMs))]);
    clearTimeout(timer);
    if (this.exitCode === undefined) this.kill();
    await Promise.race([this.exited, sleep(3000)]);
    clearInterval(this.watchdog);
    await this.child.stdout.cancel().catch(() => {});
    await this.child.stderr.cancel().catch(() => {});
  }

  /** Starts and initializes a server; throws when it does not answer initialize. */
  static async start(options: RawServerOptions = {}): Promise<RawServer> {
    const server = new RawServer(options);
    if (!(await server.initialize())) {
      const tail = server.stderrTail;
      await server.close(500);
      throw new Error(`the server did not answer initialize: ${tail}`);
    }
    return server;
  }
}

/** Text of a tools/call reply, "" when it has none. */
export function replyText(reply: Message | undefined): string {
  const content = reply?.result?.content;
  if (!Array.isArray(content)) return "";
  return content.filter((c) => c?.type === "text").map((c) => String(c.text)).join("\n");
}

/** A tools/call reply that is a tool error (isError) or a JSON-RPC error. */
export function replyIsError(reply: Message | undefined): boolean {
  return reply === undefined || reply.error !== undefined || reply.result?.isError === true;
}
