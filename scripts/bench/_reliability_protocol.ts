// Protocol inputs for the reliability benchmark: malformed and hostile JSON-RPC lines, each with
// the ids whose reply it is owed (JSON-RPC 2.0: a parse error or an unreadable id is answered
// with `id: null`). Only inputs that owe a reply are listed.

const enc = new TextEncoder();

export interface ProtocolInput {
  name: string;
  bytes: Uint8Array;
  /** A reply with any of these ids, or with id null, counts as the answer. */
  ids: (string | number)[];
}

let counter = 0;
const nid = () => `p${++counter}`;

function line(text: string): Uint8Array {
  return enc.encode(`${text}\n`);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The inputs; `oversizeChars` sets the size of the two oversize messages (11 MB by default). */
export function protocolInputs(
  options: { oversizeChars?: number; depth?: number } = {},
): ProtocolInput[] {
  const big = options.oversizeChars ?? 11_000_000;
  const depth = options.depth ?? 100_000;
  const out: ProtocolInput[] = [];
  const add = (name: string, text: string | Uint8Array, ids: (string | number)[] = []) =>
    out.push({ name, bytes: typeof text === "string" ? line(text) : text, ids });
  const req = (id: unknown, method: unknown, params?: unknown, extra: object = {}) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      ...(params === undefined ? {} : { params }),
      ...extra,
    });

  // Not JSON at all: parse error, id null.
  for (
    const [name, text] of [
      ["not json", "hello server"],
      ["lone {", "{"],
      ["truncated request", '{"jsonrpc":"2.0","id":"t1","method":"ping"'],
      ["single quotes", "{'jsonrpc':'2.0','id':1,'method':'ping'}"],
      ["trailing comma", '{"jsonrpc":"2.0","id":"t2","method":"ping",}'],
      ["unquoted key", '{jsonrpc:"2.0",id:"t3",method:"ping"}'],
      ["extra closing brace", '{"jsonrpc":"2.0","id":"t4","method":"ping"}}'],
      ["NaN literal", '{"jsonrpc":"2.0","id":NaN,"method":"ping"}'],
      ["leading zero number id", '{"jsonrpc":"2.0","id":01,"method":"ping"}'],
      ["unterminated string", '{"jsonrpc":"2.0","id":"t5,"method":"ping"}'],
      ["bare ]", "]"],
      ["comment", '// {"jsonrpc":"2.0","id":"t6","method":"ping"}'],
      ["raw control byte in string", '{"jsonrpc":"2.0","id":"t7","method":"pi\u0001ng"}'],
      ["NUL bytes", "\u0000\u0000\u0000"],
    ] as const
  ) add(name, text); // no readable id: the answer is a parse error with id null

  // JSON, but not a request: invalid request, id null (or the id when readable).
  for (
    const [name, text] of [
      ["number", "123"],
      ["string", '"ping"'],
      ["true", "true"],
      ["null", "null"],
      ["empty object", "{}"],
      ["empty array (empty batch)", "[]"],
    ] as const
  ) add(name, text);

  // Wrong or missing jsonrpc, with a readable id.
  for (const [name, value] of [["1.0", "1.0"], ["number 2", 2], ["2.1", "2.1"], ["null", null]]) {
    const id = nid();
    add(`jsonrpc ${name}`, JSON.stringify({ jsonrpc: value, id, method: "ping" }), [id]);
  }
  {
    const id = nid();
    add("jsonrpc missing", JSON.stringify({ id, method: "ping" }), [id]);
  }

  // Odd ids (an id that is not a string or number is unreadable: id null).
  for (
    const [name, id] of [
      ["id object", { a: 1 }],
      ["id array", [1]],
      ["id true", true],
      ["id 1.5", 1.5],
      ["id -7", -7],
      ["id empty string", ""],
      ["id 1 MB string", "i".repeat(1_000_000)],
      ["id 1e308", 1e308],
    ] as [string, unknown][]
  ) add(name, req(id, "ping"), typeof id === "string" || typeof id === "number" ? [id] : []);
  add("id huge literal 1e400", '{"jsonrpc":"2.0","id":1e400,"method":"ping"}');

  // Bad methods.
  for (
    const [name, method] of [
      ["method missing", undefined],
      ["method number", 5],
      ["method ''", ""],
      ["method null", null],
      ["unknown method", "foo/bar"],
      ["method object", { m: 1 }],
    ] as [string, unknown][]
  ) {
    const id = nid();
    add(name, req(id, method), [id]);
  }

  // params of the wrong shape.
  for (const method of ["ping", "tools/list", "tools/call", "initialize", "resources/list"]) {
    for (
      const [name, params] of [["array", [1, 2]], ["string", "x"], ["number", 3], ["null", null]]
    ) {
      const id = nid();
      add(`${method} params as ${name}`, req(id, method, params), [id]);
    }
  }

  // tools/call with broken arguments.
  for (
    const [name, params] of [
      ["no name", { arguments: {} }],
      ["name number", { name: 7, arguments: {} }],
      ["unknown tool", { name: "rm_rf", arguments: {} }],
      ["arguments array", { name: "view", arguments: ["."] }],
      ["arguments string", { name: "view", arguments: '{"path":"."}' }],
      ["arguments null", { name: "view", arguments: null }],
      ["lone surrogate in path", { name: "view", arguments: { path: "a\ud800b" } }],
      ["__proto__ key", JSON.parse('{"name":"view","arguments":{"__proto__":{"path":"."}}}')],
    ] as [string, unknown][]
  ) {
    const id = nid();
    add(`tools/call ${name}`, req(id, "tools/call", params), [id]);
  }

  // Batches (MCP dropped batch support; JSON-RPC still owes an answer).
  {
    const a = nid(), b = nid();
    add("batch of two pings", `[${req(a, "ping")},${req(b, "ping")}]`, [a, b]);
    add("batch [1]", "[1]");
    add("batch [{},{}]", "[{},{}]");
    const c = nid();
    add(
      "batch with a notification",
      `[${req(c, "ping")},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
      [c],
    );
  }

  // Invalid UTF-8.
  {
    const id = nid();
    add(
      "invalid UTF-8 in a string value",
      concat(
        enc.encode(
          `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"view","arguments":{"path":"x`,
        ),
        new Uint8Array([0xff, 0xfe, 0xc3]),
        enc.encode(`"}}}\n`),
      ),
      [id],
    );
    const id2 = nid();
    add(
      "invalid UTF-8 in the method",
      concat(
        enc.encode(`{"jsonrpc":"2.0","id":"${id2}","method":"pi`),
        new Uint8Array([0xc0, 0x80]),
        enc.encode(`ng"}\n`),
      ),
      [id2],
    );
    add("invalid UTF-8 only", new Uint8Array([0xff, 0xff, 0xfe, 0x0a]));
    const id3 = nid();
    add(
      "UTF-8 BOM before the request",
      concat(new Uint8Array([0xef, 0xbb, 0xbf]), line(req(id3, "ping"))),
      [id3],
    );
    const id4 = nid();
    add("CRLF line ending", `${req(id4, "ping")}\r`, [id4]);
  }

  // Deep nesting.
  {
    const id = nid();
    add(
      `${depth}-deep array in params`,
      `{"jsonrpc":"2.0","id":"${id}","method":"ping","params":{"x":${"[".repeat(depth)}${
        "]".repeat(depth)
      }}}`,
      [id],
    );
    const id2 = nid();
    add(
      `${depth}-deep object in arguments`,
      `{"jsonrpc":"2.0","id":"${id2}","method":"tools/call","params":{"name":"view","arguments":${
        '{"a":'.repeat(depth)
      }1${"}".repeat(depth)}}}`,
      [id2],
    );
    add(`${depth}-deep unbalanced array`, "[".repeat(depth));
  }

  // Two messages on one line.
  {
    const a = nid(), b = nid();
    add("two requests on one line", `${req(a, "ping")}${req(b, "ping")}`, [a, b]);
    const c = nid(), d = nid();
    add("two requests, space between", `${req(c, "ping")} ${req(d, "ping")}`, [c, d]);
  }

  // Oversize messages (the SDK's stdio buffer is 10 MiB).
  {
    const id = nid();
    add(
      `text_editor create with ${big.toLocaleString("en")} characters`,
      req(id, "tools/call", {
        name: "text_editor",
        arguments: { command: "create", path: "oversize.txt", file_text: "x".repeat(big) },
      }),
      [id],
    );
    const id2 = nid();
    add(`${big.toLocaleString("en")} bytes of garbage on one line`, `${"g".repeat(big)}`);
    add(
      `ping after ${big.toLocaleString("en")} bytes without a newline`,
      concat(enc.encode(" ".repeat(big)), line(req(id2, "ping"))),
      [id2],
    );
  }
  return out;
}
