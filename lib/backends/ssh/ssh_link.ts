// One pooled, self-healing connection to a host: opens lazily, keeps the SFTP channel, notices
// drops and reconnects on the next request; retries an in-flight request once only when the
// caller says it is safe to repeat. When the host refuses another channel on it (sshd's
// MaxSessions, 10 by default: each running job holds one), commands go over extra connections.
// Counts requests (SFTP calls and execs) for benchmarks.

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
  /** Channels open on it (SFTP, the helper, execs, running jobs). */
  channels: number;
  /** An extra connection's idle close, while it carries no channel. */
  idle?: ReturnType<typeof setTimeout>;
}

/**
 * Extra connections one link may open when the host refuses more channels on the first (9
 * connections of OpenSSH's default 10 channels: far more than the 16 jobs that run at once).
 */
const MAX_EXTRA_CONNECTIONS = 8;
/** An extra connection without channels is closed after this long. */
const EXTRA_IDLE_MS = 10_000;

/**
 * The host answered a channel request with a refusal (SSH_MSG_CHANNEL_OPEN_FAILURE, which ssh2
 * reports with a numeric `reason`): the connection itself is fine.
 */
function isChannelRefusal(error: unknown): boolean {
  return typeof (error as { reason?: unknown })?.reason === "number";
}

/** A command's channel on an extra connection was cut with that connection (not the first). */
class ExtraConnectionLost extends Error {
  constructor(readonly original: unknown) {
    super((original as Error)?.message ?? String(original));
  }
}

/** How to treat a request that was in flight when the connection dropped. */
type RetryPolicy =
  /** Reads, stat, listings: repeat on a fresh connection. */
  | "safe"
  /** Writes whose effect cannot be checked: report, do not repeat. */
  | "unsafe"
  /** Decide after reconnecting (e.g. "the temp file still exists, so the rename did not run"). */
  | ((link: SshLink) => Promise<boolean>);

interface ExecResult {
  stdout: Uint8Array;
  stderr: string;
  code: number | null;
}

export class SshLink {
  private live: Live | undefined;
  private opening: Promise<Live> | undefined;
  /** Connections opened because the host refused more channels on the first one. */
  private extras: Live[] = [];
  private extraOpening: Promise<Live> | undefined;
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
    if (this.closed) throw this.closedError();
    if (this.live && !this.live.dead) return this.live;
    this.opening ??= (async () => {
      try {
        const live = await this.openLive();
        if (this.opened++ > 0) this.reconnects++;
        this.live = live;
        if (this.closed) this.shutdown(live);
        return live;
      } finally {
        this.opening = undefined;
      }
    })();
    return await this.opening;
  }

  private closedError(): AnchorError {
    return new AnchorError({
      code: "SSH_CLOSED",
      message: `The connection to ${this.description} was closed (anchorfs is shutting down).`,
      fault: "environment",
    });
  }

  /** A new authenticated connection, marked dead when it closes. */
  private async openLive(): Promise<Live> {
    const opened = await openConnection(this.host, { ...this.options, signal: this.giveUp.signal });
    const live: Live = { client: opened.client, dead: false, channels: 0 };
    if (opened.jump) live.jump = opened.jump;
    const markDead = () => {
      live.dead = true;
      if (live.idle !== undefined) clearTimeout(live.idle);
    };
    opened.client.on("close", markDead);
    opened.client.on("end", markDead);
    opened.client.on("error", markDead);
    return live;
  }

  /** Counts `channel` on `live` until it closes; an idle extra connection is closed later. */
  private hold(live: Live, channel: { on(event: "close", fn: () => void): unknown }): void {
    live.channels++;
    if (live.idle !== undefined) clearTimeout(live.idle);
    live.idle = undefined;
    channel.on("close", () => {
      live.channels--;
      if (live.channels > 0 || live === this.live || live.dead) return;
      live.idle = setTimeout(() => {
        live.idle = undefined;
        if (live.channels > 0) return;
        this.extras = this.extras.filter((l) => l !== live);
        this.shutdown(live);
      }, EXTRA_IDLE_MS);
    });
  }

  /** One exec channel on `live`, counted while open. */
  private execOn(live: Live, command: string): Promise<ClientChannel> {
    return new Promise<ClientChannel>((resolve, reject) => {
      live.client.exec(command, (err, channel) => {
        if (err) return reject(err);
        this.hold(live, channel);
        resolve(channel);
      });
    });
  }

  /**
   * An exec channel for `command`: on `live` (the first connection), else, when the host
   * refuses another channel there while others are open on it (its MaxSessions), on an extra
   * connection, opened when every one has refused. A refusal with no channel open is the
   * host's answer to any command (e.g. an SFTP-only account): it is thrown.
   */
  private async session(
    live: Live,
    command: string,
  ): Promise<{ channel: ClientChannel; on: Live }> {
    const refused = new Set<Live>();
    for (;;) {
      for (const candidate of [live, ...this.extras]) {
        if (candidate.dead || refused.has(candidate)) continue;
        try {
          return { channel: await this.execOn(candidate, command), on: candidate };
        } catch (error) {
          if (!isChannelRefusal(error) || candidate.channels === 0) throw error;
          refused.add(candidate);
        }
      }
      await this.addExtra(refused.size);
    }
  }

  /** Opens one more extra connection (or waits for the one being opened). */
  private async addExtra(refusedCount: number): Promise<void> {
    if (this.closed) throw this.closedError();
    if (this.extraOpening) return void await this.extraOpening;
    this.extras = this.extras.filter((l) => !l.dead);
    if (this.extras.length >= MAX_EXTRA_CONNECTIONS) {
      throw new AnchorError({
        code: "SSH_EXEC_FAILED",
        message: `${this.description} refused another channel on each of its ${refusedCount} ` +
          "connections from anchorfs (its sshd's MaxSessions limits channels per connection; " +
          "every running job holds one).",
        hint: "Wait for a running job on that host to end (or kill one), then run the command " +
          "again; nothing was started.",
        fault: "environment",
      });
    }
    this.extraOpening = (async () => {
      try {
        const extra = await this.openLive();
        this.extras.push(extra);
        if (this.closed) this.shutdown(extra);
        return extra;
      } finally {
        this.extraOpening = undefined;
      }
    })();
    await this.extraOpening;
  }

  private sftpOf(live: Live): Promise<SFTPWrapper> {
    live.sftp ??= new Promise<SFTPWrapper>((resolve, reject) => {
      live.client.sftp((err, sftp) => {
        if (err) {
          live.sftp = undefined;
          return reject(err);
        }
        this.hold(live, sftp);
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
    // The host refused a channel: it answered, so the connection (and every job on it) is fine.
    if (isChannelRefusal(error)) return false;
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
      if (error instanceof ExtraConnectionLost) {
        // Only an extra connection dropped: the first one and its jobs are fine.
        const repeat = retry === "safe" ? true : retry === "unsafe" ? false : await retry(this);
        if (!repeat) throw this.lost(action, error.original);
        this.requests++;
        return await fn(await this.connect());
      }
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
        if (err) {
          // Every channel taken (by running jobs): SFTP this time, the helper once one is free.
          if (isChannelRefusal(err) && live.channels > 0) live.helper = undefined;
          return resolve(null); // exec refused (e.g. an SFTP-only account)
        }
        this.hold(live, channel);
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
    return await this.withLive(action, "safe", async (live) => {
      const { channel, on } = await this.session(live, command);
      try {
        const r = await collect(channel, stdin);
        // No exit status means the channel died with the connection, not that it ran.
        if (r.code === null) throw new Error("exec channel closed without an exit status");
        return r;
      } catch (error) {
        throw await this.onExtra(on, live, error);
      }
    });
  }

  /** Like exec, but hands the live stdout stream to `consume` (for streaming parsers). */
  async execStream<T>(
    action: string,
    command: string,
    stdin: Uint8Array | string,
    consume: (channel: ClientChannel) => Promise<T>,
  ): Promise<T> {
    return await this.withLive(action, "safe", async (live) => {
      const { channel, on } = await this.session(live, command);
      channel.end(stdin);
      try {
        return await consume(channel);
      } catch (error) {
        throw await this.onExtra(on, live, error);
      }
    });
  }

  /** The error to rethrow: marked when the extra connection `on` (not `first`) dropped. */
  private async onExtra(on: Live, first: Live, error: unknown): Promise<unknown> {
    if (on === first) return error;
    await new Promise((r) => setTimeout(r, 0));
    return on.dead ? new ExtraConnectionLost(error) : error;
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
    const { channel, on } = await this.session(live, command).catch((error) => {
      if (error instanceof AnchorError) throw error;
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
    return { channel, dropped: () => on.dead };
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
    await Promise.all([this.opening, this.extraOpening].map((p) => p?.catch(() => {})));
    const all = [this.live, ...this.extras];
    this.live = undefined;
    this.extras = [];
    await Promise.all(all.map((live) => live && this.closeLive(live)));
  }

  private async closeLive(live: Live): Promise<void> {
    if (live.idle !== undefined) clearTimeout(live.idle);
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
