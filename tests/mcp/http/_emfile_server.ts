// A bare listener (lib/mcp/http/listener.ts) with no connection cap, for the EMFILE test: run under
// a low `ulimit -n`, a flood then exhausts its descriptors at accept. Prints "port N" on stdout.

import { listen } from "../../../lib/mcp/http/listener.ts";

// Bound before the flood: binding a signal while out of descriptors panics the runtime (Deno 2.9).
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));

const listening = listen({
  hostname: "127.0.0.1",
  port: 0,
  limits: { headerTimeoutMs: 1000, bodyTimeoutMs: 1000, maxConnections: 100_000 },
  onListen: (addr) => void Deno.stdout.write(new TextEncoder().encode(`port ${addr.port}\n`)),
  onError: () => new Response("error", { status: 500 }),
}, () => new Response("ok"));
await listening.finished;
