// The fd flood of issue 29.5 against `anchorfs mcp --http`: per round, a server under `ulimit -n`
// with an agent and a running job, then F connections that send half a request line and nothing
// more. Reports per round: died (the server exited), lost (the job no longer listed or its process
// gone), refused (503 at the connection cap), held-then-closed (closed by the header timeout),
// still open after the bound, the time until every flood connection had ended, and a fresh
// client's first call latency right after the flood. Targets: died 0, lost 0, still open 0.
//
// Usage: deno run -A scripts/bench/fd_flood_bench.ts [rounds=3] [connections=1000] [ulimit=1024]
//        [header-timeout=2, "-" for none (a checkout without the flag)] [main.ts of another checkout]

// deno-lint-ignore-file no-console

import { startHttpServer } from "../../tests/mcp/http/_http_harness.ts";
import {
  jobIdOf,
  livePidsMatching,
  processAlive,
  uniqueMarker,
} from "../../tests/mcp/_jobs_helpers.ts";

const rounds = Number(Deno.args[0] ?? 3);
const connections = Number(Deno.args[1] ?? 1000);
const fdLimit = Number(Deno.args[2] ?? 1024);
const headerTimeout = Deno.args[3] ?? "2";
const main = Deno.args[4];
const HALF = new TextEncoder().encode("POST /mcp HTTP/1.1\r\nHost: 127");
const BOUND_MS = 60_000;

async function flood(url: string) {
  const { hostname, port } = new URL(url);
  const conns: Deno.Conn[] = [];
  let connectFailed = 0;
  for (let i = 0; i < connections; i++) {
    try {
      const c = await Deno.connect({ hostname, port: Number(port) });
      conns.push(c);
      await c.write(HALF).catch(() => {});
    } catch {
      connectFailed++;
    }
  }
  const started = performance.now();
  const buf = new Uint8Array(4096);
  const ends = await Promise.all(conns.map(async (c) => {
    let text = "";
    const deadline = started + BOUND_MS;
    while (performance.now() < deadline) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const n = await Promise.race([
        c.read(buf).catch(() => null),
        new Promise<"bound">((
          r,
        ) => (timer = setTimeout(() => r("bound"), deadline - performance.now()))),
      ]);
      clearTimeout(timer);
      if (n === "bound") break;
      if (n === null) {
        c.close();
        return text.startsWith("HTTP/1.1 503") ? "refused" : "closed";
      }
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    c.close();
    return "open";
  }));
  const count = (k: string) => ends.filter((e) => e === k).length;
  return {
    connectFailed,
    refused: count("refused"),
    closed: count("closed"),
    open: count("open"),
    allEndedMs: Math.round(performance.now() - started),
  };
}

const dir = await Deno.makeTempDir({ prefix: "anchorfs-fd-flood-" });
await Deno.writeTextFile(`${dir}/a.txt`, "alpha\n");
let died = 0, lost = 0, stillOpen = 0;
for (let round = 1; round <= rounds; round++) {
  await using server = await startHttpServer({
    args: [
      "--path",
      dir,
      "--foreground-window",
      "0.2",
      ...(headerTimeout === "-" ? [] : ["--header-timeout", headerTimeout]),
    ],
    fdLimit,
    ...(main !== undefined && { main }),
  });
  const agent = await server.connect("v1");
  const marker = uniqueMarker();
  const id = jobIdOf((await agent.call("shell", { command: `sleep ${marker} & wait` })).raw);
  const result = await flood(server.url);
  const alive = processAlive(server.pid);
  let firstCallMs = NaN;
  let jobKept = false;
  if (alive) {
    const t0 = performance.now();
    const fresh = await server.connect("v2");
    await fresh.call("view", { path: "a.txt" });
    firstCallMs = Math.round(performance.now() - t0);
    jobKept = (await agent.call("jobs", { action: "list" })).text.includes(id) &&
      livePidsMatching(marker).length > 0;
  }
  died += alive ? 0 : 1;
  lost += jobKept ? 0 : 1;
  stillOpen += result.open;
  const cap = /at most (\d+) at once/.exec(server.stderr())?.[1];
  console.log(
    `round ${round}: ulimit ${fdLimit}, cap ${cap}, ${connections} half requests: ` +
      `refused ${result.refused}, closed by the server (header timeout, or its death) ${result.closed}, still open ` +
      `${result.open}, connect failed ${result.connectFailed}; all ended in ${result.allEndedMs} ms; ` +
      `server ${alive ? "alive" : "DIED"}, job ${jobKept ? "kept" : "LOST"}; fresh client ` +
      `connect + view ${firstCallMs} ms`,
  );
}
console.log(`total over ${rounds} rounds: died ${died}, lost ${lost}, still open ${stillOpen}`);
await Deno.remove(dir, { recursive: true });
