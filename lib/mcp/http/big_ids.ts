// Integer JSON-RPC ids past 2^53 over HTTP, as on stdio (jsonrpc_check.ts): a request body's big
// id becomes a BIG_ID_PREFIX string before the SDK parses it (JSON.parse would round
// 9007199254740993 to ...992, and the SDK's schema then refuses the message), and every such
// string in a response body is written back as the integer the client sent. Plumbing only: the
// body is rewritten when the handler reads it (after authentication), never before.

import { BIG_ID_PREFIX, keepBigIds } from "../stdio/jsonrpc_check.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Digits no JavaScript number keeps exactly: only then is a body parsed here at all. */
const LONG_NUMBER = /\d{16,}/;
const TOKEN = `"${BIG_ID_PREFIX}`;
// Not after a backslash: a token quoted inside a string's text stays as it is.
const TOKEN_RE = new RegExp(
  `(?<!\\\\)${TOKEN.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}(-?\\d+)"`,
  "g",
);

/**
 * Serves `request` with `fetch`, big integer ids lifted in a POST body and lowered in the
 * response (a GET stream's too: a resumed stream replays responses).
 */
export async function serveWithBigIds(
  request: Request,
  fetch: (request: Request) => Promise<Response>,
  maxBytes: number,
): Promise<Response> {
  if (request.method === "GET") return lowerBigIds(await fetch(request));
  if (request.method !== "POST" || !request.body) return await fetch(request);
  const seen = { big: false };
  const lifted = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: liftBigIdsInBody(request.body, maxBytes, seen),
    duplex: "half",
  } as RequestInit);
  const response = await fetch(lifted);
  return seen.big ? lowerBigIds(response) : response;
}

/**
 * A POST body with each message's big integer id (and a cancel's requestId) as a BIG_ID_PREFIX
 * string; any other body unchanged. A body past `maxBytes` is passed on as it came (the SDK
 * refuses it as too large).
 */
export function liftBigIdsInBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  seen: { big: boolean } = { big: false },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (started) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
        return;
      }
      started = true;
      const chunks: Uint8Array[] = [];
      let size = 0;
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.length;
        if (size > maxBytes) {
          // Too big to rewrite: hand it on unchanged, the rest streaming behind.
          for (const chunk of chunks) controller.enqueue(chunk);
          return;
        }
      }
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      const lifted = liftBigIds(bytes);
      seen.big = lifted !== bytes;
      controller.enqueue(lifted);
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function liftBigIds(bytes: Uint8Array): Uint8Array {
  const text = decoder.decode(bytes);
  if (!LONG_NUMBER.test(text)) return bytes;
  try {
    const value = JSON.parse(text);
    const lifted = keepBigIds(text, value);
    return lifted === value ? bytes : encoder.encode(JSON.stringify(lifted));
  } catch {
    return bytes; // not JSON: the SDK's parse error answers it
  }
}

/** `response` with every BIG_ID_PREFIX id string written back as its integer. */
export function lowerBigIds(response: Response): Response {
  if (!response.body) return response;
  let carry = "";
  const lowered = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = lower(carry + decoder.decode(chunk, { stream: true }));
        // A token cut by the chunk boundary (an opening quote, no closing one yet) waits for
        // the rest; complete ones are lowered already.
        const quote = text.lastIndexOf('"');
        const tail = quote < 0 ? "" : text.slice(quote);
        const held = tail !== "" && (TOKEN.startsWith(tail) || tail.startsWith(TOKEN));
        carry = held ? tail : "";
        const ready = held ? text.slice(0, quote) : text;
        if (ready) controller.enqueue(encoder.encode(ready));
      },
      flush(controller) {
        const rest = lower(carry + decoder.decode());
        if (rest) controller.enqueue(encoder.encode(rest));
      },
    }),
  );
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(lowered, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

const lower = (text: string) => text.includes(TOKEN) ? text.replace(TOKEN_RE, "$1") : text;
