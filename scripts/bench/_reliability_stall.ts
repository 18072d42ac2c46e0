// Section 6 of the reliability benchmark: one call that could stall or flood the server. Each case
// sends its call through the raw wire, pings every 100 ms while it runs (each ping waited for up to
// 30 s), and reports whether the server died, whether the call was answered (a hang: no reply
// within the deadline plus 60 s), the reply's size and time, the slowest ping and the peak RSS.
// Cases: 300,000 unknown argument keys (reply amplification), and a catastrophic regex over six
// one-line 16 MiB files, as `|`-joined file roots and as a directory, under --deadline.

import { RawServer, sleep } from "./_reliability_server.ts";
import { longLine, SLOW_REGEX } from "../../tests/_long_line.ts";
import { V8_FLAGS as LAUNCH_V8_FLAGS } from "../release/compile.ts";

export interface StallRow {
  name: string;
  died: boolean;
  hung: boolean;
  replyBytes: number;
  replySeconds: number;
  worstPingMs: number;
  pingsUnanswered: number;
  peakMb: number;
  note: string;
}

export interface StallOptions {
  quick: boolean;
  /** --deadline of the regex cases, in seconds. */
  deadline: number;
  mainTs?: string;
  log: (line: string) => void;
}

// The launchers' V8 flags (scripts/release/compile.ts), as the benches measure the server.
const V8_FLAGS = `${LAUNCH_V8_FLAGS}`;

/** Runs `call` on a fresh server in `dir`, pinging meanwhile; one row. */
async function measure(
  name: string,
  dir: string,
  args: string[],
  call: (server: RawServer) => Promise<{ id: string; from: number }>,
  waitMs: number,
  options: StallOptions,
): Promise<StallRow> {
  const server = await RawServer.start({
    cwd: dir,
    args: ["--path", dir, "--state-dir", `${dir}/.state`, ...args],
    v8Flags: V8_FLAGS,
    ...(options.mainTs ? { mainTs: options.mainTs } : {}),
  });
  const started = performance.now();
  let worstPingMs = 0;
  let pingsUnanswered = 0;
  let done = false;
  try {
    const { id, from } = await call(server);
    const pinging = (async () => {
      while (!done && server.alive) {
        const t = performance.now();
        if (!(await server.ping(30_000))) pingsUnanswered++;
        worstPingMs = Math.max(worstPingMs, performance.now() - t);
        await sleep(100);
      }
    })();
    const reply = await server.waitFor((m) => m.id === id, waitMs, from);
    done = true;
    await pinging;
    const at = reply ? server.messages.indexOf(reply) : -1;
    return {
      name,
      died: !server.alive,
      hung: reply === undefined && server.alive,
      replyBytes: at >= 0 ? server.lineBytes[at]! : 0,
      replySeconds: (performance.now() - started) / 1000,
      worstPingMs,
      pingsUnanswered,
      peakMb: Math.round(server.peakHwmKb / 1024),
      note: reply ? noteOf(reply) : "",
    };
  } finally {
    done = true;
    await server.close(3000);
  }
}

/** The first sentence a reply's text says about a stop, or its first 80 characters. */
function noteOf(reply: Record<string, unknown>): string {
  const content = (reply.result as { content?: { text?: string }[] } | undefined)?.content;
  const text = content?.map((c) => c.text ?? "").join("\n") ?? JSON.stringify(reply.error);
  const inside = /It stopped inside [^(]*/.exec(text)?.[0];
  const deadline = /The call reached the server's [\d.]+ s deadline/.exec(text)?.[0];
  return [deadline, inside].filter(Boolean).join("; ").slice(0, 120) ||
    text.split("\n")[0]!.slice(0, 80);
}

function send(server: RawServer, name: string, args: Record<string, unknown>) {
  const id = server.newId();
  const from = server.messages.length;
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  return server.send(`${line}\n`, 60_000).then(() => ({ id, from }));
}

export async function runStall(dir: string, options: StallOptions): Promise<StallRow[]> {
  const rows: StallRow[] = [];
  await Deno.writeTextFile(`${dir}/a.txt`, "alpha\n");
  options.log("  300,000 unknown argument keys…");
  const keys: Record<string, unknown> = { path: "a.txt" };
  for (let i = 0; i < 300_000; i++) keys[`k${i}`] = 1;
  rows.push(
    await measure(
      "300,000 unknown argument keys",
      dir,
      [],
      (s) => send(s, "view", keys),
      120_000,
      options,
    ),
  );
  const files = options.quick ? 3 : 6;
  const line = longLine(16 * 1024 * 1024 - 1);
  await Deno.mkdir(`${dir}/long`);
  const names: string[] = [];
  for (let i = 0; i < files; i++) {
    names.push(`long/f${i}.txt`);
    await Deno.writeFile(`${dir}/long/f${i}.txt`, line);
  }
  const deadline = ["--deadline", String(options.deadline)];
  const regex = { content: SLOW_REGEX, regex: true };
  const waitMs = (options.deadline + 60) * 1000;
  for (const [label, path] of [["file roots", names.join("|")], ["a directory", "long"]]) {
    options.log(`  regex over ${files} one-line 16 MiB files as ${label}…`);
    rows.push(
      await measure(
        `regex over ${files} one-line 16 MiB files as ${label}, --deadline ${options.deadline}`,
        dir,
        deadline,
        (s) => send(s, "view", { path, ...regex }),
        waitMs,
        options,
      ),
    );
  }
  return rows;
}
