// big_ids.ts alone: lifting a big integer id out of a request body and writing it back into a
// response stream, whatever the chunk boundaries.

import { assertEquals } from "../../_assert.ts";
import { BIG_ID_PREFIX } from "../../../lib/mcp/stdio/jsonrpc_check.ts";
import { liftBigIdsInBody, lowerBigIds } from "../../../lib/mcp/http/big_ids.ts";

const encoder = new TextEncoder();

/** A stream of `text` cut into pieces of `size` bytes. */
function pieces(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at += size));
    },
  });
}

Deno.test("lowerBigIds writes a lifted id back as its integer wherever the stream is cut", async () => {
  const sent = `data: {"result":{},"jsonrpc":"2.0","id":"${BIG_ID_PREFIX}9007199254740993"}\n\n`;
  for (const size of [1, 2, 7, 50, 4096]) {
    const text = await lowerBigIds(new Response(pieces(sent, size))).text();
    assertEquals(
      text,
      'data: {"result":{},"jsonrpc":"2.0","id":9007199254740993}\n\n',
      `size ${size}`,
    );
  }
});

Deno.test("lowerBigIds leaves other strings, and a token quoted inside a string, alone", async () => {
  const inner = `{"text":"say \\"${BIG_ID_PREFIX}12345678901234567\\"","id":"x"}`;
  assertEquals(await lowerBigIds(new Response(inner)).text(), inner);
});

Deno.test("liftBigIdsInBody turns only an unsafe integer id into the stand-in string", async () => {
  const big = '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}';
  const lifted = JSON.parse(await new Response(liftBigIdsInBody(pieces(big, 5), 1000)).text());
  assertEquals(lifted.id, `${BIG_ID_PREFIX}9007199254740993`);
  const small = '{"jsonrpc":"2.0","id":7,"method":"ping","params":{"n":12345678901234567890}}';
  assertEquals(await new Response(liftBigIdsInBody(pieces(small, 5), 1000)).text(), small);
  const large = `{"jsonrpc":"2.0","id":9007199254740993,"pad":"${"x".repeat(200)}"}`;
  assertEquals(await new Response(liftBigIdsInBody(pieces(large, 5), 100)).text(), large);
});
