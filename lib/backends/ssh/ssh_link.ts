// One pooled, self-healing connection to a host: opens lazily, keeps the SFTP channel, notices
// drops and reconnects on the next request; retries an in-flight request once only when the
// caller says it is safe to repeat. Counts requests (SFTP calls and execs) for benchmarks.

import type { Client as SshClient, ClientChannel, SFTPWrapper } from "./ssh2_types.d.ts";
import { AnchorError } from "../../core/errors.ts";
import type { ResolvedHost } from "../../core/ssh/ssh_config.ts";
import { type ConnectOptions, describeHost, openConnection } from "./ssh_connect.ts";
import { helperCommand, RemoteHelper } from "./remote_helper.ts";
import { concatBytes } from "./concat_bytes.ts";

interface Live {
  client: SshClient;
  jump?: SshClient;
  sftp?: Promise<SFTPWrapper>;
  helper?: Promise<RemoteHelper | null>;
  dead: boolean;
}

/** How to treat a request that was in flight when the connection dropped. */
export type RetryPolicy =
  /** Reads, stat, listings: repeat on a fresh connection. */
  | "safe"
  /** Writes whose effect cannot be checked: report, do not repeat. */
  | "unsafe"
  /** Decide after reconnecting (e.g. "the temp file still exists, so the rename did not run"). */
  | ((link: SshLink) => Promise<boolean>);

export interface ExecResult {
  stdout: Uint8Array;
  stderr: string;
  code: number | null;
}

export class SshLink {
  private live: Live | undefined;
  private opening: Promise<Live> | undefined;
  private closed = false;
  private readonly giveUp = new AbortController();
  /** SFTP requests and execs sent; a proxy for network round trips. */
  requests = 0;
  /** Connections opened after the first one. */
  reconnects = 0;
  private opened = 0;

  constructor(readonly host: ResolvedHost, private options: ConnectOptions) {}

  get description(): string {
    return describeHost(this.host);
  }

  private async connect(): Promise<Live> {
    if (this.closed) {
      throw new AnchorError({
        code: "SSH_CLOSED",
        message: `The connection to ${this.description} was closed (anchorfs is shutting down).`,
        fault: "environment",
      });
    }
    if (this.live && !this.live.dead) return this.live;
    this.opening ??= (async () => {
      try {
        const opened = await openConnection(this.host, {
          ...this.options,
          signal: this.giveUp.signal,
        });
        if (this.opened++ > 0) this.reconnects++;
        const live: Live = { client: opened.client, dead: false };
        if (opened.jump) live.jump = opened.jump;
        const markDead = () => {
          live.dead = true;
        };
        opened.client.on("close", markDead);
        opened.client.on("end", markDead);
        opened.client.on("error", markDead);
        this.live = live;
        if (this.closed) this.shutdown(live);
        return live;
      } finally {
        this.opening = undefined;
      }
    })();
    return await this.opening;
  }

  private sftpOf(live: Live): Promise<SFTPWrapper> {
    live.sftp ??= new Promise<SFTPWrapper>((resolve, reject) => {
      live.client.sftp((err, sftp) => {
        if (err) {
          live.sftp = undefined;
          return reject(err);
        }
        sftp.on("close", () => {
          if (live.sftp) live.dead = true;
        });
        resolve(sftp);
      });
    });
    return live.sftp;
  }

  /** True when `error` means the transport failed rather than the server refusing the call. */
  private isTransportError(error: unknown, live: Live): boolean {
    if (error instanceof AnchorError) return false;
    if (live.dead) return true;
    const e = error as { code?: unknown; message?: string };
    if (typeof e?.code === "number") return false; // an SFTP status from a working server
    return /No response from server|Not connected|ECONNRESET|EPIPE|socket|channel|closed/i
      .test(e?.message ?? "");
  }

  /**
   * Runs `fn` with the SFTP channel. When the connection drops under it, reconnects and, if
   * `retry` allows, runs it once more; otherwise throws SSH_CONNECTION_LOST.
   */
  async withSftp<T>(
    action: string,
    retry: RetryPolicy,
    fn: (sftp: SFTPWrapper) => Promise<T>,
  ): Promise<T> {
    return await this.withLive(action, retry, async (live) => fn(await this.sftpOf(live)));
  }

  private async withLive<T>(
    action: string,
    retry: RetryPolicy,
    fn: (live: Live) => Promise<T>,
  ): Promise<T> {
    const live = await this.connect();
    try {
      this.requests++;
      return await fn(live);
    } catch (error) {
      // Give the socket's close event a moment to arrive before deciding what failed.
      await new Promise((r) => setTimeout(r, 0));
      if (!this.isTransportError(error, live)) throw error;
      live.dead = true;
      this.shutdown(live);
      const again = await this.connect().catch((e) => {
        throw this.lost(action, error, e);
      });
      const repeat = retry === "safe" ? true : retry === "unsafe" ? false : await retry(this);
      if (!repeat) throw this.lost(action, error);
      this.requests++;
      return await fn(again);
    }
  }

  private lost(action: string, error: unknown, reconnectError?: unknown): AnchorError {
    if (reconnectError instanceof AnchorError) return reconnectError;
    return new AnchorError({
      code: "SSH_CONNECTION_LOST",
      message:
        `The connection to ${this.description} dropped while anchorfs was trying to ${action} ` +
        `(${(error as Error)?.message ?? error}). It was not repeated automatically because it ` +
        "may already have been applied.",
      hint: "The connection is re-established; view the file to see whether the change is there, " +
        "then repeat the call if it is not.",
      fault: "environment",
    });
  }

  private helperOf(live: Live): Promise<RemoteHelper | null> {
    live.helper ??= new Promise<RemoteHelper | null>((resolve) => {
      this.requests++;
      live.client.exec(helperCommand(), (err, channel) => {
        if (err) return resolve(null); // exec refused (e.g. an SFTP-only account)
        const timeoutMs = Math.min(this.options.timeoutMs, 10_000);
        RemoteHelper.start(channel, timeoutMs).then(resolve, () => resolve(null));
      });
    });
    return live.helper;
  }

  /**
   * Runs a bulk request on the connection's remote helper (see remote_helper.ts). Returns
   * `null` when the host cannot run it (no exec, no GNU find/tar): callers fall back to SFTP.
   * Bulk requests only read, so one that dies with the connection is repeated once.
   */
  async withHelper<T>(action: string, fn: (helper: RemoteHelper) => Promise<T>): Promise<T | null> {
    return await this.withLive(action, "safe", async (live) => {
      let helper = await this.helperOf(live);
      if (!helper) return null;
      if (!helper.alive && !live.dead) {
        // Only the helper's channel ended: start a new one on the same connection.
        live.helper = undefined;
        helper = await this.helperOf(live);
        if (!helper) return null;
      }
      return await fn(helper);
    });
  }

  /**
   * Runs `command` with `sh -c` semantics via exec, feeding `stdin`, collecting all output.
   * Throws the raw ssh2 error when exec is refused (callers fall back to SFTP).
   */
  async exec(action: string, command: string, stdin: Uint8Array | string): Promise<ExecResult> {
    return await this.withLive(
      action,
      "safe",
      (live) =>
        new Promise<ExecResult>((resolve, reject) => {
          live.client.exec(command, (err, channel) => {
            if (err) return reject(err);
            collect(channel, stdin).then((r) => {
              // No exit status means the channel died with the connection, not that it ran.
              if (r.code === null) reject(new Error("exec channel closed without an exit status"));
              else resolve(r);
            }, reject);
          });
        }),
    );
  }

  /** Like exec, but hands the live stdout stream to `consume` (for streaming parsers). */
  async execStream<T>(
    action: string,
    command: string,
    stdin: Uint8Array | string,
    consume: (channel: ClientChannel) => Promise<T>,
  ): Promise<T> {
    return await this.withLive(action, "safe", (live) =>
      new Promise<T>((resolve, reject) => {
        live.client.exec(command, (err, channel) => {
          if (err) return reject(err);
          channel.end(stdin);
          consume(channel).then(resolve, reject);
        });
      }));
  }

  /**
   * Opens an exec channel for a long-running command and hands it over as is: no retry (a job
   * is never started twice). `dropped()` says whether the connection under it has died.
   */
  async openExec(
    action: string,
    command: string,
  ): Promise<{ channel: ClientChannel; dropped: () => boolean }> {
    const live = await this.connect();
    this.requests++;
    const channel = await new Promise<ClientChannel>((resolve, reject) => {
      live.client.exec(command, (err, ch) => (err ? reject(err) : resolve(ch)));
    }).catch((error) => {
      throw new AnchorError({
        code: "SSH_EXEC_FAILED",
        message: `Could not ${action} on ${this.description}: ${
          (error as Error)?.message ?? error
        }`,
        hint: "The host refused to run a command (an SFTP-only account?); nothing was started.",
        fault: "environment",
        cause: error,
      });
    });
    return { channel, dropped: () => live.dead };
  }

  private shutdown(live: Live): void {
    try {
      live.client.end();
    } catch { /* already closed */ }
    try {
      live.jump?.end();
    } catch { /* already closed */ }
  }

  /** Test hook: the socket's peer side ends as if the network dropped. */
  destroySocket(): void {
    const live = this.live as (Live & { client: { _sock?: { destroy(): void } } }) | undefined;
    live?.client._sock?.destroy();
  }

  async close(): Promise<void> {
    this.closed = true;
    // A connect still in progress is given up, not waited out (up to --ssh-timeout).
    this.giveUp.abort();
    const opening = this.opening;
    if (opening) await opening.catch(() => {});
    const live = this.live;
    this.live = undefined;
    if (!live) return;
    await new Promise<void>((resolve) => {
      if (live.dead) return resolve();
      const timer = setTimeout(resolve, 2000);
      live.client.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      this.shutdown(live);
    });
    live.jump?.end();
  }
}

function collect(channel: ClientChannel, stdin: Uint8Array | string): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const out: Uint8Array[] = [];
    const err: Uint8Array[] = [];
    let code: number | null = null;
    channel.on("data", (d: Uint8Array) => out.push(d));
    channel.stderr.on("data", (d: Uint8Array) => err.push(d));
    channel.on("exit", (c: number | null) => {
      code = c;
    });
    channel.on("error", reject);
    channel.on("close", () => {
      const dec = new TextDecoder();
      resolve({ stdout: concatBytes(out), stderr: err.map((c) => dec.decode(c)).join(""), code });
    });
    channel.end(stdin);
  });
}
