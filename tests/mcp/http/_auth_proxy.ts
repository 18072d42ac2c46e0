// A TCP proxy for tests that adds `Authorization: Bearer TOKEN` to every HTTP/1.1 request and
// changes nothing else (Host and Origin pass through), for clients that cannot send a token:
// the conformance suite. Request bodies are framed by Content-Length or chunked encoding.

const encoder = new TextEncoder();
const HEAD_END = encoder.encode("\r\n\r\n");

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export interface AuthProxy extends AsyncDisposable {
  url: string;
}

/** Listens on 127.0.0.1 (a free port) and forwards to `target` (http://host:port/path). */
export function startAuthProxy(target: string, token: string): AuthProxy {
  const upstream = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const client of listener) {
      conns.add(client);
      handle(client).catch(() => {}).finally(() => conns.delete(client));
    }
  })().catch(() => {});

  async function handle(client: Deno.Conn): Promise<void> {
    const server = await Deno.connect({
      hostname: upstream.hostname,
      port: Number(upstream.port),
    });
    conns.add(server);
    const back = server.readable.pipeTo(client.writable).catch(() => {});
    const writer = server.writable.getWriter();
    const reader = client.readable.getReader();
    let buf: Uint8Array = new Uint8Array(0);
    const more = async (): Promise<boolean> => {
      const { value, done } = await reader.read();
      if (done) return false;
      buf = concat(buf, value);
      return true;
    };
    try {
      while (true) {
        let end = indexOf(buf, HEAD_END);
        while (end < 0) {
          if (!await more()) return;
          end = indexOf(buf, HEAD_END);
        }
        const head = new TextDecoder().decode(buf.subarray(0, end));
        buf = buf.subarray(end + 4);
        const lines = head.split("\r\n").filter((l) => !/^authorization:/i.test(l));
        lines.splice(1, 0, `Authorization: Bearer ${token}`);
        await writer.write(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`));
        const length = /^content-length:\s*(\d+)/im.exec(head);
        if (length) {
          let left = Number(length[1]);
          while (left > 0) {
            if (buf.length === 0 && !await more()) return;
            const part = buf.subarray(0, left);
            await writer.write(part);
            left -= part.length;
            buf = buf.subarray(part.length);
          }
        } else if (/^transfer-encoding:\s*chunked/im.test(head)) {
          // Forward chunks as they are until the terminating zero-size chunk and its CRLF.
          while (true) {
            let eol = indexOf(buf, encoder.encode("\r\n"));
            while (eol < 0) {
              if (!await more()) return;
              eol = indexOf(buf, encoder.encode("\r\n"));
            }
            const size = parseInt(new TextDecoder().decode(buf.subarray(0, eol)), 16);
            const total = eol + 2 + size + 2;
            while (buf.length < total) if (!await more()) return;
            await writer.write(buf.subarray(0, total));
            buf = buf.subarray(total);
            if (size === 0) break;
          }
        }
      }
    } finally {
      await writer.close().catch(() => {});
      await back;
      try {
        client.close();
      } catch {
        // closed already
      }
      conns.delete(server);
    }
  }

  const addr = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}${upstream.pathname}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // closed already
        }
      }
      await serving;
    },
  };
}
