// The first moments of `anchorfs mcp` on stdio, before anything heavy loads: when the flags cannot
// change the opening reply, stdin is read at once and the client's `initialize` answered
// (early_initialize.ts) while the rest of the server (services, node modules, the MCP SDK) loads.
// Imports only small pure modules: every module on this path delays that first reply.

import { EarlyInitialize } from "./early_initialize.ts";
import { logLine } from "../log.ts";
import { OutboundQueue } from "./outbound_queue.ts";
import { describeServer } from "../server_info.ts";
import { ObservedTransport } from "./stdio_transport.ts";
import { parseMaxMessageBytes, StdioWire } from "./stdio_wire.ts";
import { EARLY_RULES, MCP_FLAG_SPEC, type McpFlag } from "../flag_table.ts";
import { parseServeFlags } from "../flags.ts";
import type { McpFlagValues } from "../mcp_args.ts";

/** Milliseconds of silence on stdin after which the rest is loaded anyway (for a slow client). */
export const PRELOAD_AFTER_MS = 100;

/** The stdio connection, opened before the rest of the server has loaded. */
export interface EarlyOpening {
  wire: StdioWire;
  outbound: OutboundQueue;
  transport: ObservedTransport;
  /**
   * Resolves when the rest may load: the first line was handled (an `initialize` answered), stdin
   * ended, or PRELOAD_AFTER_MS passed in silence. Loading blocks the event loop.
   */
  ready: Promise<void>;
  /**
   * Removes the early SIGTERM/SIGINT listeners (they close the connection, as the command's do):
   * the command calls it once its own are in place.
   */
  releaseSignals(): void;
}

/** The flags the early start reads or has checked (flag_table.ts); any other one defers. */
const EARLY_FLAGS = new Set(
  Object.entries(EARLY_RULES).filter(([, rule]) => rule !== "late").map(([flag]) => flag),
);

export interface OpeningFlags {
  shell: boolean;
  maxMessageBytes: number;
  /** --path as given, to be checked as a directory before answering. */
  path?: string;
  /** A flag whose value flags.ts must accept before anything is answered. */
  needsCheck: boolean;
  /** The flags as read, in the shape node:util gives the full parser (mcp_args.ts). */
  values: McpFlagValues;
}

/**
 * What the opening reply depends on, when `args` are plain enough to read without the full flag
 * parser: long flags the early start may take (EARLY_RULES), each once, values not starting with
 * "-". Undefined otherwise (--allow, --roots, --http, --help, an unknown flag, ...): the full
 * parser decides first, as always.
 */
export function scanOpeningFlags(args: readonly string[]): OpeningFlags | undefined {
  const seen = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(args[i]!);
    if (!m || seen.has(m[1]!) || !EARLY_FLAGS.has(m[1]!)) return undefined;
    const name = m[1]! as McpFlag;
    if (MCP_FLAG_SPEC[name].type === "boolean") {
      if (m[2] !== undefined) return undefined;
      seen.set(name, true);
      continue;
    }
    const value = m[2] ?? args[++i];
    if (value === undefined || (m[2] === undefined && value.startsWith("-"))) return undefined;
    seen.set(name, value);
  }
  const path = seen.get("path");
  if (typeof path === "string" && path.startsWith("ssh:")) return undefined;
  const rawMax = seen.get("max-message-bytes");
  let maxMessageBytes;
  try {
    maxMessageBytes = parseMaxMessageBytes(typeof rawMax === "string" ? rawMax : undefined);
  } catch {
    return undefined;
  }
  return {
    shell: !seen.has("no-shell"),
    maxMessageBytes,
    ...(typeof path === "string" && { path }),
    needsCheck: [...seen.keys()].some((flag) => EARLY_RULES[flag as McpFlag] === "checked"),
    values: Object.fromEntries(seen) as McpFlagValues,
  };
}

/**
 * True when the server will start with these flags as far as the early start can tell: --path
 * is a directory and flags.ts accepts every value. A false leaves the reply to the full start,
 * which then fails with its message on stderr and no reply: a failed connection, not a
 * connected server that exits.
 */
export function flagsHold(flags: OpeningFlags): boolean {
  if (flags.path !== undefined) {
    try {
      if (!Deno.statSync(flags.path).isDirectory) return false;
    } catch {
      return false;
    }
  }
  if (!flags.needsCheck) return true;
  try {
    parseServeFlags(flags.values);
    return true;
  } catch {
    return false;
  }
}

/** Opens stdin for `anchorfs mcp ARGS` if the flags allow an early reply, else undefined. */
export function openEarly(args: readonly string[]): EarlyOpening | undefined {
  const flags = scanOpeningFlags(args);
  if (!flags || !flagsHold(flags)) return undefined;
  const log = (line: string) => logLine(`anchorfs: ${line}`);
  const early = new EarlyInitialize(describeServer({ shell: flags.shell }), log);
  const wire = new StdioWire({ maxMessageBytes: flags.maxMessageBytes, log, early });
  const outbound = new OutboundQueue(wire);
  const transport = new ObservedTransport(outbound);
  // A client may stop the server as soon as initialize is answered, before the rest has loaded:
  // the same orderly close as later, not the runtime's default exit 143.
  const stop = () => void transport.close().catch(() => {});
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  const releaseSignals = () => {
    Deno.removeSignalListener("SIGTERM", stop);
    Deno.removeSignalListener("SIGINT", stop);
  };
  wire.open();
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, PRELOAD_AFTER_MS);
    wire.firstInput.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { wire, outbound, transport, ready, releaseSignals };
}
