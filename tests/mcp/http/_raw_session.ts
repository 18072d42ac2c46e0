// A 2025-era HTTP session driven with plain fetch, for what the SDK clients hide: a client that
// never opens its GET stream, a GET stream's first frames, Last-Event-ID, a reused request id.

export const PROTOCOL = "2025-11-25";

export interface SseFrame {
  id: string | undefined;
  retry: string | undefined;
  data: string;
}

export function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Reads SSE frames until one's data satisfies `until` (at most 20 s); cancels the stream. */
export async function readSse(
  response: Response,
  until: (frame: SseFrame) => boolean,
): Promise<SseFrame[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: SseFrame[] = [];
  let text = "";
  // A frame that never comes ends the read (and fails the assertion after it), not the run.
  const timer = setTimeout(() => reader.cancel().catch(() => {}), 20_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return frames;
      text += value;
      const parts = text.split("\n\n");
      text = parts.pop()!;
      for (const part of parts) {
        const lines = part.split("\n");
        const field = (name: string) =>
          lines.find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
          .join("\n");
        const frame = { id: field("id"), retry: field("retry"), data };
        frames.push(frame);
        if (until(frame)) return frames;
      }
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

export interface RawSession {
  id: string;
  /** Headers for every later request of the session. */
  headers: Record<string, string>;
  /** A request; resolves with the frames up to its answer. */
  call(id: number, method: string, params?: unknown): Promise<SseFrame[]>;
  /** A tools/call; resolves with the answer's data. */
  tool(id: number, name: string, args: Record<string, unknown>): Promise<string>;
  /** Opens the GET stream (resolves once the server answered its headers). */
  listen(lastEventId?: string): Promise<Response>;
}

/** initialize + notifications/initialized, nothing else: no GET stream is opened. */
export async function openRawSession(url: string, token: string): Promise<RawSession> {
  const auth = { Authorization: `Bearer ${token}` };
  const init = await post(url, auth, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  if (init.status !== 200) {
    throw new Error(`initialize answered ${init.status}: ${await init.text()}`);
  }
  const id = init.headers.get("mcp-session-id")!;
  await readSse(init, (f) => f.data.includes('"result"'));
  const headers = { ...auth, "Mcp-Session-Id": id, "Mcp-Protocol-Version": PROTOCOL };
  const initialized = await post(url, headers, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  await initialized.body?.cancel();
  const call = async (n: number, method: string, params?: unknown) => {
    const response = await post(url, headers, { jsonrpc: "2.0", id: n, method, params });
    if (response.status !== 200) {
      return [{
        id: undefined,
        retry: undefined,
        data: `${response.status} ${await response.text()}`,
      }];
    }
    return await readSse(response, (f) => f.data.includes(`"id":${n}`));
  };
  return {
    id,
    headers,
    call,
    async tool(n, name, args) {
      return (await call(n, "tools/call", { name, arguments: args })).at(-1)!.data;
    },
    listen(lastEventId) {
      return fetch(url, {
        headers: {
          ...headers,
          Accept: "text/event-stream",
          ...(lastEventId !== undefined && { "Last-Event-ID": lastEventId }),
        },
      });
    },
  };
}
