// The stdin framing: lines within the cap come out whole however the chunks fall; a line past
// the cap is reported (with the id it carried) without ever being held, in any chunking.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { type FrameEvent, LineFramer, TopLevelScanner } from "../../lib/mcp/stdio/line_framer.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function frame(max: number, chunks: Uint8Array[]): FrameEvent[] {
  const framer = new LineFramer(max);
  const events: FrameEvent[] = [];
  for (const chunk of chunks) {
    events.push(...framer.push(chunk));
    assert(framer.pendingBytes <= max, `held ${framer.pendingBytes} bytes, cap ${max}`);
  }
  return events;
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.slice(prev, p));
    prev = p;
  }
  out.push(bytes.slice(prev));
  return out;
}

function describeEvents(events: FrameEvent[]): unknown[] {
  return events.map((e) => e.kind === "line" ? dec.decode(e.bytes) : { ...e });
}

Deno.test("LineFramer returns lines within the cap, an empty line included", () => {
  const events = frame(10, [enc.encode("abc\n\nde"), enc.encode("f\n")]);
  assertEquals(describeEvents(events), ["abc", "", "def"]);
});

Deno.test("LineFramer reports a line past the cap with its size, id and method, and goes on", () => {
  const big = JSON.stringify({ method: "tools/call", params: { text: "x".repeat(100) }, id: 7 });
  const events = frame(50, [enc.encode(`${big}\n{"id":1}\n`)]);
  assertEquals(describeEvents(events), [
    { kind: "oversized", bytes: big.length, id: 7, method: "tools/call" },
    '{"id":1}',
  ]);
});

Deno.test("LineFramer: a line of exactly the cap passes; one byte more is oversized", () => {
  assertEquals(describeEvents(frame(5, [enc.encode("12345\n123456\n")])), [
    "12345",
    { kind: "oversized", bytes: 6, id: undefined, method: undefined },
  ]);
});

Deno.test("LineFramer gives the same events however the input is chunked", () => {
  const lines = [
    '{"jsonrpc":"2.0","id":"a\\"b","method":"x","params":{"t":"' + "y\\n".repeat(40) + '"}}',
    '{"params":{"nested":[{"id":5},"]}\\\\"]},"id":12,"method":"m"}',
    "short",
    '{"id":[1],"method":"m"}',
    '{"a":1}{"id":3}',
  ];
  const input = enc.encode(lines.join("\n") + "\n");
  const whole = describeEvents(frame(30, [input]));
  fc.assert(
    fc.property(fc.array(fc.nat(input.length), { maxLength: 12 }), (cuts) => {
      assertEquals(describeEvents(frame(30, splitAt(input, cuts))), whole);
    }),
    { numRuns: 300 },
  );
  assertEquals(whole, [
    { kind: "oversized", bytes: lines[0]!.length, id: 'a"b', method: "x" },
    { kind: "oversized", bytes: lines[1]!.length, id: 12, method: "m" },
    "short",
    '{"id":[1],"method":"m"}',
    '{"a":1}{"id":3}',
  ]);
});

Deno.test("TopLevelScanner reads id and method only from a well-formed top-level object", () => {
  const scan = (text: string) => {
    const s = new TopLevelScanner();
    s.feed(enc.encode(text));
    return s.result();
  };
  assertEquals(scan('{"id":3,"method":"ping"}'), { id: 3, method: "ping" });
  assertEquals(scan(' { "method" : "a\\u0062" , "id" : "x" } '), { id: "x", method: "ab" });
  assertEquals(scan('{"params":{"id":9}}'), { id: undefined, method: undefined });
  assertEquals(scan('{"id":1.5}'), { id: undefined, method: undefined });
  assertEquals(scan('{"id":null}'), { id: undefined, method: undefined });
  // Not an object, truncated, trailing comma, or a second value: nothing is trusted.
  assertEquals(scan('[{"id":1}]'), { id: undefined, method: undefined });
  assertEquals(scan('{"id":1,"method":"m"'), { id: undefined, method: undefined });
  assertEquals(scan('{"id":1,}'), { id: undefined, method: undefined });
  assertEquals(scan('{"id":1}{"id":2}'), { id: undefined, method: undefined });
});

Deno.test("LineFramer drops 64 MiB of one line in 1 MiB chunks while holding at most the cap", () => {
  const framer = new LineFramer(4096);
  const chunk = enc.encode("z".repeat(1024 * 1024));
  assertEquals(framer.push(enc.encode('{"id":42,"params":"')), []);
  for (let i = 0; i < 64; i++) {
    assertEquals(framer.push(chunk), []);
    assertEquals(framer.pendingBytes, 0);
  }
  const events = framer.push(enc.encode('","method":"tools/call"}\n'));
  assertEquals(events.length, 1);
  const event = events[0]!;
  assert(event.kind === "oversized");
  assertEquals([event.id, event.method], [42, "tools/call"]);
  assertEquals(event.bytes, 64 * 1024 * 1024 + 19 + 24);
});
