// The `anchorfs mcp --http` flags: their parseArgs spec, their help text, and parsing them into
// HttpOptions (bind address, loopback rule, allowed names, limits). No I/O.

import { AnchorError } from "../../core/errors.ts";
import {
  CONNECTION_USAGE,
  type ConnectionFlagValues,
  parseConnectionFlags,
} from "./connection_options.ts";
import type { ConnectionLimits } from "./listener.ts";

export { HTTP_FLAG_SPEC } from "./http_flag_spec.ts";
import { HTTP_FLAG_SPEC } from "./http_flag_spec.ts";

export const HTTP_USAGE = `
HTTP (Streamable HTTP at /mcp instead of stdio):
  --http HOST:PORT             Serve MCP over Streamable HTTP at http://HOST:PORT/mcp. Every request
                               needs Authorization: Bearer TOKEN (see --token-file).
  --token-file FILE            Tokens, one per line (one per agent; # comments). Default:
                               $ANCHORFS_TOKEN, else a token generated into STATE_DIR/http-token.
  --http-public                Allow binding a non-loopback address (reachable from the network).
  --allow-origin NAME          A further host name accepted in Host and Origin headers (e.g. the
                               name a reverse proxy serves); repeatable. Others get 403.
  --idle-timeout SECONDS       End a session after this long without requests (default 1800).
  --unstreamed-timeout SECONDS End a session that never opened its GET stream after this long
                               without requests (default 60; one-shot clients that never DELETE).
  --max-sessions N             Concurrent sessions (default 64), shared out equally among the
                               tokens; when a token's share is full, its least recently used idle
                               session ends to make room (503 only when all of them are busy).
  --max-body-bytes N           Largest request body (default 4194304).${CONNECTION_USAGE}`;

export interface HttpOptions {
  hostname: string;
  port: number;
  /** The bound address is not a loopback address (needs --http-public). */
  isPublic: boolean;
  /** Host names accepted in Host and Origin (hostnames only, IPv6 in brackets). */
  allowedHosts: string[];
  tokenFile?: string | undefined;
  idleTimeoutMs: number;
  /** Idle timeout of a session that never opened its GET stream (at most idleTimeoutMs). */
  unstreamedTimeoutMs: number;
  maxSessions: number;
  maxBodyBytes: number;
  /** Timeouts and the connection cap of the listener (listener.ts). */
  connections: ConnectionLimits;
}

export interface HttpFlagValues extends ConnectionFlagValues {
  http?: string | undefined;
  "http-public"?: boolean | undefined;
  "token-file"?: string | undefined;
  "allow-origin"?: string[] | undefined;
  "idle-timeout"?: string | undefined;
  "unstreamed-timeout"?: string | undefined;
  "max-sessions"?: string | undefined;
  "max-body-bytes"?: string | undefined;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

export function isLoopback(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** HttpOptions from the flags, or undefined when --http is absent (stdio). */
export function parseHttpFlags(values: HttpFlagValues): HttpOptions | undefined {
  if (values.http === undefined) {
    const stray = Object.keys(HTTP_FLAG_SPEC).find((flag) =>
      flag !== "http" && values[flag as keyof HttpFlagValues] !== undefined
    );
    if (stray) {
      throw new AnchorError({
        code: "INVALID_FLAG",
        message: `--${stray} applies to the HTTP server only, and --http was not given.`,
        hint: `Add --http 127.0.0.1:8765 (or drop --${stray} to serve on stdio).`,
      });
    }
    return undefined;
  }
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(values.http);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--http takes HOST:PORT, got ${JSON.stringify(values.http)}.`,
      hint: "e.g. --http 127.0.0.1:8765 (port 0 picks a free port; IPv6 as [::1]:8765).",
    });
  }
  const hostname = m[1]!;
  const isPublic = !isLoopback(hostname);
  if (isPublic && !values["http-public"]) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--http ${values.http} would listen on a non-loopback address, reachable from ` +
        "the network; that needs an explicit --http-public.",
      hint: `Bind loopback (--http 127.0.0.1:${port}) and put a reverse proxy in front, or add ` +
        "--http-public.",
    });
  }
  const extra = (values["allow-origin"] ?? []).map(hostOf);
  const wildcard = ["0.0.0.0", "[::]"].includes(hostname);
  const allowedHosts = [
    ...new Set([
      ...LOOPBACK_NAMES.filter(() => !isPublic || wildcard),
      ...(isPublic && !wildcard ? [hostname.toLowerCase()] : []),
      ...extra,
    ]),
  ];
  return {
    hostname: hostname.replace(/^\[|\]$/g, ""),
    port,
    isPublic,
    allowedHosts,
    tokenFile: values["token-file"],
    idleTimeoutMs: positive("--idle-timeout", values["idle-timeout"], 1800, "seconds") * 1000,
    unstreamedTimeoutMs:
      positive("--unstreamed-timeout", values["unstreamed-timeout"], 60, "seconds") * 1000,
    maxSessions: Math.floor(positive("--max-sessions", values["max-sessions"], 64, "sessions")),
    maxBodyBytes: Math.floor(
      positive("--max-body-bytes", values["max-body-bytes"], 4 * 1024 * 1024, "bytes"),
    ),
    connections: parseConnectionFlags(values),
  };
}

/** A host name from an --allow-origin value: a bare name, NAME:PORT, or an origin URL. */
function hostOf(value: string): string {
  try {
    if (value.includes("://")) return new URL(value).hostname.toLowerCase();
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--allow-origin ${JSON.stringify(value)} is not a host name or origin.`,
      hint: "e.g. --allow-origin mcp.example.com or --allow-origin https://mcp.example.com.",
    });
  }
}

function positive(flag: string, raw: string | undefined, fallback: number, unit: string): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `${flag} takes a positive number of ${unit}, got ${JSON.stringify(raw)}.`,
      hint: `e.g. ${flag} ${fallback}.`,
    });
  }
  return value;
}
