// The HTTP connection flags (--header-timeout, --body-timeout, --max-connections): their parseArgs
// spec, help text, parsing, and how the connection cap is sized from the open-file limit so that
// a flood of connections leaves descriptors for the file tools and jobs. No I/O.

import { AnchorError } from "../../core/errors.ts";
import type { ConnectionLimits } from "./listener.ts";

export { CONNECTION_FLAG_SPEC } from "./http_flag_spec.ts";

export const CONNECTION_USAGE = `
  --header-timeout SECONDS     Close a connection that has not sent a request's headers this long
                               after opening or after its last response (default 10).
  --body-timeout SECONDS       Close a connection whose request body is not all there this long
                               after it started (default 30).
  --max-connections N          Connections served at once (default 512, and at most about half
                               the open-file limit); more are answered 503 and closed.`;

export interface ConnectionFlagValues {
  "header-timeout"?: string | undefined;
  "body-timeout"?: string | undefined;
  "max-connections"?: string | undefined;
}

export const DEFAULT_MAX_CONNECTIONS = 512;
/** Descriptors the process needs whatever the traffic (runtime, stdio, state dir, a few jobs). */
const BASE_RESERVE = 32;
/** The soft open-file limit the HTTP server raises itself to when the hard limit allows. */
export const FD_LIMIT_TARGET = 4096;

export function parseConnectionFlags(values: ConnectionFlagValues): ConnectionLimits {
  return {
    headerTimeoutMs: seconds("--header-timeout", values["header-timeout"], 10) * 1000,
    bodyTimeoutMs: seconds("--body-timeout", values["body-timeout"], 30) * 1000,
    maxConnections: count(values["max-connections"]),
  };
}

/**
 * The connections served at once under an open-file limit of `softLimit`: what was asked, but no
 * more than half the limit less a base reserve, so that the other half stays for the file tools,
 * searches and jobs when every connection slot is taken. At least 8.
 */
export function connectionCap(requested: number, softLimit: number): number {
  if (!Number.isFinite(softLimit)) return requested;
  return Math.min(requested, Math.max(8, Math.floor(softLimit / 2) - BASE_RESERVE));
}

export const NO_CONNECTION_GUARDS = "connections: this Deno has no per-connection serving, so " +
  "there is no connection cap or header timeout (request bodies still time out).";

/** The start-up line on the connection limits in force and the open-file limit behind them. */
export function connectionsLine(
  limits: ConnectionLimits,
  asked: number,
  fd: { soft: number; raisedFrom?: number; note?: string },
): string {
  const limit = !Number.isFinite(fd.soft)
    ? `open-file limit unknown: ${fd.note}`
    : fd.raisedFrom !== undefined
    ? `open-file limit ${fd.soft}, raised from ${fd.raisedFrom}`
    : `open-file limit ${fd.soft}${fd.note ? `, not raised: ${fd.note}` : ""}`;
  const kept = limits.maxConnections < asked
    ? "; the rest is kept for the file tools and jobs"
    : "";
  return `connections: at most ${limits.maxConnections} at once (${limit}${kept}); headers ` +
    `within ${limits.headerTimeoutMs / 1000} s, bodies within ${limits.bodyTimeoutMs / 1000} s.`;
}

function seconds(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `${flag} takes a positive number of seconds, got ${JSON.stringify(raw)}.`,
      hint: `e.g. ${flag} ${fallback} (fractions like 0.5 are allowed).`,
    });
  }
  return value;
}

function count(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MAX_CONNECTIONS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--max-connections takes a whole number of connections, at least 1, got ${
        JSON.stringify(raw)
      }.`,
      hint: `e.g. --max-connections ${DEFAULT_MAX_CONNECTIONS}.`,
    });
  }
  return value;
}
