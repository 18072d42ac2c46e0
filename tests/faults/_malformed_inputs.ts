// Malformed and borderline protocol inputs, each with the replies JSON-RPC 2.0 owes it. Shared by
// tests/faults/protocol_test.ts and scripts/bench/protocol_fuzz_bench.ts. Ids 1000+ are used here, so
// a test's own requests (small ids) never collide with them.

export interface OwedReply {
  id: string | number | null;
  /** The error code owed; undefined: any reply (a result or an error) is fine. */
  code?: number;
}

export interface MalformedInput {
  name: string;
  /** One line, newline included. */
  bytes: Uint8Array;
  owed: OwedReply[];
}

const PARSE = -32700;
const INVALID = -32600;
const NOT_FOUND = -32601;
const enc = new TextEncoder();

function line(text: string): Uint8Array {
  return enc.encode(`${text}\n`);
}

function raw(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((p) => typeof p === "string" ? enc.encode(p) : new Uint8Array(p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0) + 1);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  out[at] = 0x0a;
  return out;
}

const deep = 100_000;

export const MALFORMED_INPUTS: MalformedInput[] = [
  // Not JSON at all.
  { name: "plain text", bytes: line("not json"), owed: [{ id: null, code: PARSE }] },
  { name: "a lone brace", bytes: line("{"), owed: [{ id: null, code: PARSE }] },
  {
    name: "truncated object",
    bytes: line('{"jsonrpc":"2.0","id":1001,"method":"ping"'),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "trailing comma",
    bytes: line('{"jsonrpc":"2.0","id":1002,"method":"ping",}'),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "single quotes",
    bytes: line("{'jsonrpc':'2.0','id':1003,'method':'ping'}"),
    owed: [{ id: null, code: PARSE }],
  },
  { name: "NUL bytes", bytes: raw([0, 0, 0]), owed: [{ id: null, code: PARSE }] },
  {
    name: "bare control characters in a string",
    bytes: raw('{"jsonrpc":"2.0","id":1004,"method":"ping","params":{"x":"a', [1, 27], 'b"}}'),
    owed: [{ id: null, code: PARSE }],
  },
  // Invalid UTF-8.
  {
    name: "invalid UTF-8 byte in a string",
    bytes: raw('{"jsonrpc":"2.0","id":1005,"method":"ping","params":{"x":"', [0xff], '"}}'),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "truncated UTF-8 sequence",
    bytes: raw('{"jsonrpc":"2.0","id":1006,"method":"ping","params":{"x":"', [0xc3], '"}}'),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "overlong UTF-8 encoding",
    bytes: raw('{"jsonrpc":"2.0","id":1007,"method":"ping","params":{"x":"', [0xc0, 0xaf], '"}}'),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "UTF-8-encoded surrogate",
    bytes: raw(
      '{"jsonrpc":"2.0","id":1008,"method":"ping","params":{"x":"',
      [0xed, 0xa0, 0x80],
      '"}}',
    ),
    owed: [{ id: null, code: PARSE }],
  },
  // Batches: the MCP revisions served have none.
  { name: "empty batch", bytes: line("[]"), owed: [{ id: null, code: INVALID }] },
  {
    name: "batch of two requests",
    bytes: line(
      '[{"jsonrpc":"2.0","id":1010,"method":"ping"},{"jsonrpc":"2.0","id":1011,"method":"ping"}]',
    ),
    owed: [{ id: 1010, code: INVALID }, { id: 1011, code: INVALID }],
  },
  { name: "batch of numbers", bytes: line("[1,2,3]"), owed: [{ id: null, code: INVALID }] },
  {
    name: "batch of a notification",
    bytes: line('[{"jsonrpc":"2.0","method":"notifications/initialized"}]'),
    owed: [{ id: null, code: INVALID }],
  },
  // Valid JSON, not a request object.
  { name: "a number", bytes: line("42"), owed: [{ id: null, code: INVALID }] },
  { name: "a string", bytes: line('"ping"'), owed: [{ id: null, code: INVALID }] },
  { name: "null", bytes: line("null"), owed: [{ id: null, code: INVALID }] },
  { name: "true", bytes: line("true"), owed: [{ id: null, code: INVALID }] },
  { name: "empty object", bytes: line("{}"), owed: [{ id: null, code: INVALID }] },
  {
    name: 'jsonrpc "1.0"',
    bytes: line('{"jsonrpc":"1.0","id":1013,"method":"ping"}'),
    owed: [{ id: 1013, code: INVALID }],
  },
  {
    name: "jsonrpc missing",
    bytes: line('{"id":1014,"method":"ping"}'),
    owed: [{ id: 1014, code: INVALID }],
  },
  {
    name: "jsonrpc as a number",
    bytes: line('{"jsonrpc":2.0,"id":1015,"method":"ping"}'),
    owed: [{ id: 1015, code: INVALID }],
  },
  {
    name: "params as an array",
    bytes: line('{"jsonrpc":"2.0","id":1016,"method":"ping","params":[]}'),
    owed: [{ id: 1016, code: INVALID }],
  },
  {
    name: "params as a string",
    bytes: line('{"jsonrpc":"2.0","id":1017,"method":"ping","params":"x"}'),
    owed: [{ id: 1017, code: INVALID }],
  },
  {
    name: "params null",
    bytes: line('{"jsonrpc":"2.0","id":1018,"method":"ping","params":null}'),
    owed: [{ id: 1018, code: INVALID }],
  },
  {
    name: "method missing",
    bytes: line('{"jsonrpc":"2.0","id":1019}'),
    owed: [{ id: 1019, code: INVALID }],
  },
  {
    name: "method as a number",
    bytes: line('{"jsonrpc":"2.0","id":1020,"method":42}'),
    owed: [{ id: 1020, code: INVALID }],
  },
  {
    name: "an unexpected member",
    bytes: line('{"jsonrpc":"2.0","id":1021,"method":"ping","extra":1}'),
    owed: [{ id: 1021, code: INVALID }],
  },
  {
    name: "id as an object",
    bytes: line('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "id as a fraction",
    bytes: line('{"jsonrpc":"2.0","id":1.5,"method":"ping"}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "id null on a request",
    bytes: line('{"jsonrpc":"2.0","id":null,"method":"ping"}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "id true",
    bytes: line('{"jsonrpc":"2.0","id":true,"method":"ping"}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "id beyond a double",
    bytes: line('{"jsonrpc":"2.0","id":1e400,"method":"ping"}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "notification with params as an array",
    bytes: line('{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}'),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "notification with method as a number",
    bytes: line('{"jsonrpc":"2.0","method":7}'),
    owed: [{ id: null, code: INVALID }],
  },
  // Nesting.
  {
    name: "100,000 nested arrays",
    bytes: line(`${"[".repeat(deep)}${"]".repeat(deep)}`),
    owed: [{ id: null, code: INVALID }],
  },
  {
    name: "100,000 nested arrays inside params",
    bytes: line(
      `{"jsonrpc":"2.0","id":1022,"method":"ping","params":{"x":${"[".repeat(deep)}${
        "]".repeat(deep)
      }}}`,
    ),
    owed: [{ id: 1022, code: INVALID }],
  },
  {
    name: "100,000 unclosed arrays",
    bytes: line("[".repeat(deep)),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "100,000 nested objects in a tool call",
    bytes: line(
      `{"jsonrpc":"2.0","id":1023,"method":"tools/call","params":{"name":"view","arguments":${
        '{"a":'.repeat(deep)
      }1${"}".repeat(deep)}}}`,
    ),
    owed: [{ id: 1023, code: INVALID }],
  },
  // Several messages on one line.
  {
    name: "two requests on one line",
    bytes: line(
      '{"jsonrpc":"2.0","id":1024,"method":"ping"}{"jsonrpc":"2.0","id":1025,"method":"ping"}',
    ),
    owed: [{ id: 1024, code: INVALID }, { id: 1025, code: INVALID }],
  },
  {
    name: "two notifications on one line",
    bytes: line(
      '{"jsonrpc":"2.0","method":"notifications/x"} {"jsonrpc":"2.0","method":"notifications/y"}',
    ),
    owed: [{ id: null, code: PARSE }],
  },
  {
    name: "a request followed by garbage",
    bytes: line('{"jsonrpc":"2.0","id":1026,"method":"ping"} trailing'),
    owed: [{ id: null, code: PARSE }],
  },
  // Responses the client sends (the server asked nothing): none is owed a reply...
  {
    name: "a result for an unknown id",
    bytes: line('{"jsonrpc":"2.0","id":99999,"result":{}}'),
    owed: [],
  },
  {
    name: "an error response with id null",
    bytes: line('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}'),
    owed: [],
  },
  // ...unless malformed with a readable id.
  {
    name: "a response with both result and error",
    bytes: line('{"jsonrpc":"2.0","id":1027,"result":{},"error":{"code":1,"message":"x"}}'),
    owed: [{ id: 1027, code: INVALID }],
  },
  {
    name: "an error response whose error is a string",
    bytes: line('{"jsonrpc":"2.0","id":1028,"error":"bad"}'),
    owed: [{ id: 1028, code: INVALID }],
  },
  // Well-formed, for the SDK to answer (or, for a notification, not).
  {
    name: "an unknown method",
    bytes: line('{"jsonrpc":"2.0","id":1029,"method":"no/such/method"}'),
    owed: [{ id: 1029, code: NOT_FOUND }],
  },
  {
    name: "an unknown notification",
    bytes: line('{"jsonrpc":"2.0","method":"notifications/no_such_thing"}'),
    owed: [],
  },
  {
    name: "tools/call of an unknown tool",
    bytes: line('{"jsonrpc":"2.0","id":1030,"method":"tools/call","params":{"name":"nope"}}'),
    owed: [{ id: 1030 }],
  },
  {
    name: "tools/call without params",
    bytes: line('{"jsonrpc":"2.0","id":1031,"method":"tools/call"}'),
    owed: [{ id: 1031 }],
  },
  {
    name: "tools/call with arguments as a string",
    bytes: line(
      '{"jsonrpc":"2.0","id":1032,"method":"tools/call","params":{"name":"view","arguments":"x"}}',
    ),
    owed: [{ id: 1032 }],
  },
  {
    name: "a string id",
    bytes: line('{"jsonrpc":"2.0","id":"s-1033","method":"ping"}'),
    owed: [{ id: "s-1033" }],
  },
  {
    name: "a CRLF line ending",
    bytes: line('{"jsonrpc":"2.0","id":1034,"method":"ping"}\r'),
    owed: [{ id: 1034 }],
  },
  {
    name: "a byte order mark",
    bytes: line('\ufeff{"jsonrpc":"2.0","id":1035,"method":"ping"}'),
    owed: [{ id: 1035 }],
  },
  { name: "a blank line", bytes: line("   "), owed: [] },
];
