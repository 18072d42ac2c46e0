// Judges one line of stdin as JSON-RPC 2.0 before the SDK sees it: a well-formed message is
// passed on; anything else gets the error reply JSON-RPC owes it (-32700 parse error, -32600
// invalid request), with the sender's id whenever one can be read, so no client waits for a
// reply that never comes. Pure: no I/O. The SDK's own envelope parse is passed in (`finishCheck`):
// importing the SDK costs most of the start-up, and lines are checked before it has loaded.

import type { JSONRPCErrorResponse, JSONRPCMessage } from "@modelcontextprotocol/server";
import { plural } from "../../core/plural.ts";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/**
 * Deepest nesting of arrays and objects a message may have. No MCP message needs more than a
 * handful of levels; the cap keeps recursive code (schema checks, cloning) safe from inputs like
 * 100,000 nested arrays.
 */
export const MAX_NESTING = 64;

type Id = string | number | null;

/** The SDK's envelope parse (`parseJSONRPCMessage`): returns the message or throws. */
export type EnvelopeParse = (value: unknown) => JSONRPCMessage;

export type LineVerdict =
  | { kind: "deliver"; message: JSONRPCMessage }
  /** Passed our checks; `finishCheck` with the SDK's parse gives the final verdict. */
  | { kind: "checked"; value: Record<string, unknown> }
  /** Error replies to send (possibly none: a malformed notification JSON-RPC leaves unanswered). */
  | { kind: "reject"; replies: JSONRPCErrorResponse[]; reason: string }
  /** A blank line: no message at all. */
  | { kind: "skip" };

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

export function errorReply(
  id: Id,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): JSONRPCErrorResponse {
  // The SDK's type wants an id; JSON-RPC 2.0 requires null when none could be read.
  return {
    jsonrpc: "2.0",
    id: id as string | number,
    error: { code, message, ...(data !== undefined && { data }) },
  };
}

function reject(id: Id, code: number, message: string): LineVerdict {
  return { kind: "reject", replies: [errorReply(id, code, message)], reason: message };
}

/**
 * Checks one line (without its newline). With `parse`, a line that passes our checks is parsed
 * at once ("deliver" or "reject"); without it, the verdict is "checked" and `finishCheck` ends it.
 */
export function checkLine(bytes: Uint8Array, parse?: EnvelopeParse): LineVerdict {
  const verdict = checkShape(bytes);
  return parse && verdict.kind === "checked" ? finishCheck(verdict.value, parse) : verdict;
}

/** The SDK's verdict on a line that passed our checks. */
export function finishCheck(value: Record<string, unknown>, parse: EnvelopeParse): LineVerdict {
  try {
    return { kind: "deliver", message: parse(value) };
  } catch (e) {
    // Our checks passed but the SDK's schema did not: answer rather than drop it.
    return reject(
      readableId(value) ?? null,
      INVALID_REQUEST,
      `Invalid Request: ${truncate(schemaProblem(e), 300)}`,
    );
  }
}

function checkShape(bytes: Uint8Array): LineVerdict {
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    return reject(
      null,
      PARSE_ERROR,
      `Parse error: the message is not valid UTF-8 (invalid byte at offset ${
        invalidUtf8Offset(bytes)
      }). Send UTF-8 JSON, one message per line.`,
    );
  }
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.trim() === "") return { kind: "skip" };
  let value: unknown;
  try {
    value = keepBigIds(text, JSON.parse(text));
  } catch (e) {
    return parseFailure(text, e);
  }
  return checkValue(value, text);
}

/**
 * Stands in for an integer id past 2^53 while the message is inside the server: a JSON number
 * that large does not survive as a JavaScript number (9007199254740993 reads as ...992), and the
 * client must get its own id back. The string carries the id's text as sent; `messageLine` writes
 * that text back in the reply. The random part keeps a client's own string ids from posing as one.
 */
export const BIG_ID_PREFIX = `anchorfs-integer-id-${crypto.randomUUID()}:`;

const isBigInteger = (v: unknown) =>
  typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v);

/**
 * `value` with its top-level "id" and a cancel's "params.requestId" as BIG_ID_PREFIX strings when
 * they are integers past 2^53 (read again from `text` with the source of each number; only then).
 */
export function keepBigIds(text: string, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const params = value.params;
  const bigRequestId = isPlainObject(params) && isBigInteger(params.requestId);
  if (!isBigInteger(value.id) && !bigRequestId) return value;
  const sources = new Map<object, Map<string, string>>();
  const reviver = function (this: object, key: string, v: unknown, context?: { source?: string }) {
    if ((key === "id" || key === "requestId") && isBigInteger(v) && context?.source) {
      if (!sources.has(this)) sources.set(this, new Map());
      sources.get(this)!.set(key, context.source);
    }
    return v;
  };
  const again = JSON.parse(text, reviver as (key: string, v: unknown) => unknown);
  const source = (holder: unknown, key: string) =>
    isPlainObject(holder) ? sources.get(holder)?.get(key) : undefined;
  const id = source(again, "id");
  if (id !== undefined) again.id = `${BIG_ID_PREFIX}${id}`;
  const requestId = source(again.params, "requestId");
  if (requestId !== undefined) again.params.requestId = `${BIG_ID_PREFIX}${requestId}`;
  return again;
}

/** One message as a line of JSON, an id that stood in for a big integer written as that integer. */
export function messageLine(message: object): string {
  const id = (message as { id?: unknown }).id;
  const raw = typeof id === "string" && id.startsWith(BIG_ID_PREFIX)
    ? id.slice(BIG_ID_PREFIX.length)
    : undefined;
  if (raw === undefined || !/^-?\d[\d.eE+-]*$/.test(raw)) return `${JSON.stringify(message)}\n`;
  const { id: _, ...rest } = message as Record<string, unknown>;
  const body = JSON.stringify(rest);
  return `${body.slice(0, -1)}${body.length > 2 ? "," : ""}"id":${raw}}\n`;
}

function parseFailure(text: string, error: unknown): LineVerdict {
  const values = splitTopLevelValues(text);
  if (values !== undefined && values.length > 1) {
    // Several messages on one line: each sender that can be named is told, by its id.
    const problem =
      `${
        plural(values.length, "JSON value")
      } on one line; MCP over stdio takes exactly one message per line. Send each message on ` +
      "its own line.";
    const ids = values.map(readableId).filter((id): id is string | number => id !== undefined);
    if (ids.length === 0) return reject(null, PARSE_ERROR, `Parse error: ${problem}`);
    const message = `Invalid Request: ${problem}`;
    return {
      kind: "reject",
      replies: ids.map((id) => errorReply(id, INVALID_REQUEST, message)),
      reason: message,
    };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return reject(
    null,
    PARSE_ERROR,
    `Parse error: the line is not valid JSON (${truncate(detail, 200)}). Send one JSON-RPC ` +
      "message per line.",
  );
}

function checkValue(value: unknown, text: string): LineVerdict {
  if (Array.isArray(value)) return rejectBatch(value);
  if (value === null || typeof value !== "object") {
    return reject(
      null,
      INVALID_REQUEST,
      `Invalid Request: a message must be a JSON object, got ${describe(value)}.`,
    );
  }
  const object = value as Record<string, unknown>;
  const hasId = "id" in object;
  const id = readableId(object);
  // A request whose id cannot be read is answered with id null (JSON-RPC 2.0, section 5).
  const replyId: Id = id ?? null;
  if (hasId && id === undefined) {
    if (object.id === null && "error" in object && !("method" in object)) {
      // The peer reporting an error it could not attribute: a response, never answered.
      return { kind: "reject", replies: [], reason: "an error response with id null" };
    }
    return reject(
      null,
      INVALID_REQUEST,
      `Invalid Request: "id" must be a string or an integer, got ${describe(object.id)}.`,
    );
  }
  if (object.jsonrpc !== "2.0") {
    return reject(
      replyId,
      INVALID_REQUEST,
      `Invalid Request: "jsonrpc" must be "2.0", got ${
        "jsonrpc" in object ? describe(object.jsonrpc) : "no jsonrpc member"
      }.`,
    );
  }
  const tooDeep = nestingPast(text, MAX_NESTING);
  if (tooDeep) {
    return reject(
      replyId,
      INVALID_REQUEST,
      `Invalid Request: the message nests arrays/objects more than ${MAX_NESTING} levels deep; ` +
        "this server refuses deeper messages.",
    );
  }
  if ("method" in object) {
    const problem = requestProblem(object);
    if (problem) return reject(replyId, INVALID_REQUEST, `Invalid Request: ${problem}`);
  } else if ("result" in object || "error" in object) {
    const problem = responseProblem(object);
    if (problem) return reject(replyId, INVALID_REQUEST, `Invalid Request: ${problem}`);
  } else {
    return reject(
      replyId,
      INVALID_REQUEST,
      'Invalid Request: no "method" (and not a response: no "result" or "error").',
    );
  }
  return { kind: "checked", value: object };
}

/** What is wrong with a request or notification (an object with "method"), if anything. */
function requestProblem(object: Record<string, unknown>): string | undefined {
  if (typeof object.method !== "string") {
    return `"method" must be a string, got ${describe(object.method)}.`;
  }
  if ("params" in object && !isPlainObject(object.params)) {
    return `"params" must be an object (MCP passes parameters by name), got ${
      describe(object.params)
    }.`;
  }
  const extra = Object.keys(object).filter((k) =>
    !["jsonrpc", "id", "method", "params"].includes(k)
  );
  if (extra.length > 0) {
    return `unexpected member${extra.length > 1 ? "s" : ""} ${
      extra.slice(0, 5).map((k) => JSON.stringify(truncate(k, 40))).join(", ")
    }; a request has only "jsonrpc", "id", "method" and "params".`;
  }
  return undefined;
}

function rejectBatch(items: unknown[]): LineVerdict {
  const message = "Invalid Request: JSON-RPC batches (arrays) are not supported: the MCP " +
    "revisions this server speaks (2024-11-05, 2025-06-18 and later) have no batching. Send " +
    "each message on its own line.";
  const ids = items.map(readableId).filter((id): id is string | number => id !== undefined);
  // Each request in the batch is answered under its own id; with none, one reply with id null.
  const replies = ids.length > 0
    ? ids.map((id) => errorReply(id, INVALID_REQUEST, message))
    : [errorReply(null, INVALID_REQUEST, message)];
  return { kind: "reject", replies, reason: message };
}

function responseProblem(object: Record<string, unknown>): string | undefined {
  if ("result" in object && "error" in object) {
    return 'a response has "result" or "error", not both.';
  }
  if ("error" in object) {
    const error = object.error;
    if (!isPlainObject(error)) return `"error" must be an object, got ${describe(error)}.`;
    if (!Number.isInteger(error.code)) return '"error.code" must be an integer.';
    if (typeof error.message !== "string") return '"error.message" must be a string.';
  } else if (!isPlainObject(object.result)) {
    return `"result" must be an object, got ${describe(object.result)}.`;
  }
  if (!("id" in object) && "result" in object) {
    return 'a result response needs the "id" it answers.';
  }
  return undefined;
}

/** The id of a message-like value when it is one JSON-RPC allows here (string or integer). */
function readableId(value: unknown): string | number | undefined {
  if (!isPlainObject(value)) return undefined;
  const id = value.id;
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isInteger(id)) return id;
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(truncate(value, 40))}`;
    case "number":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * True when the JSON text `text` (already parsed, so valid) nests deeper than `limit` levels.
 * Counted on the text, not the parsed value: walking an object of 300,000 keys cost a third of
 * a second of the main thread, a scan of its text a few milliseconds.
 */
function nestingPast(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i + 1);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The index of the quote that closes the JSON string whose text starts at `from`. */
function stringEnd(text: string, from: number): number {
  for (let i = from;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return text.length;
    let slashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === 0x5c; k--) slashes++;
    if (slashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

function schemaProblem(error: unknown): string {
  const issues = (error as { issues?: { path?: unknown[]; message?: string }[] })?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    return issues.slice(0, 3).map((i) =>
      `${(i.path ?? []).map(String).join(".") || "message"}: ${i.message ?? "invalid"}`
    ).join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The top-level JSON values of a line that holds several back to back (`{...}{...}`), or
 * undefined when the line is not such a sequence of valid values.
 */
function splitTopLevelValues(text: string): unknown[] | undefined {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d) continue;
    if (start === -1) {
      if (c !== 0x7b && c !== 0x5b) return undefined;
      start = i;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return undefined;
        }
        start = -1;
      }
    }
  }
  return depth === 0 && start === -1 ? values : undefined;
}

function invalidUtf8Offset(bytes: Uint8Array): number {
  // Binary search for the shortest prefix that fails to decode; streaming mode tolerates a
  // sequence cut at the end of the prefix, and a fresh decoder carries no state over.
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, mid + 1), {
        stream: true,
      });
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  return lo;
}
