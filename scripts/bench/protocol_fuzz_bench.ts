// Protocol robustness benchmark: feeds the real server (`main.ts mcp` over raw stdio) every input
// of the malformed-input table, an oversized message, and seeded random mutations of valid
// messages; after each, a ping. Reports inputs tried, server deaths (restarted and counted),
// inputs owed a reply that got none (within 10 s), replies with the wrong error code, peak RSS.
//
// Run: deno run -A scripts/bench/protocol_fuzz_bench.ts [--mutations 2000] [--seed 1]
//        [--main /other/checkout/main.ts] [--max-message-bytes N] [--reply-timeout SECONDS]
//        [--largest BYTES]
// Last, it measures the largest accepted message (a `text_editor create` of `--largest` bytes,
// default 4 MiB, this checkout's limit): time and peak RSS before/after.
// `--main` runs another checkout's server (e.g. the main branch, for before/after numbers).

// deno-lint-ignore-file no-console

import { parseArgs } from "node:util";
import { MALFORMED_INPUTS, type OwedReply } from "../../tests/faults/_malformed_inputs.ts";
import { RawServer } from "../../tests/faults/_raw_stdio.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    mutations: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    main: { type: "string" },
    "max-message-bytes": { type: "string" },
    "reply-timeout": { type: "string", default: "10" },
    largest: { type: "string", default: String(4 * 1024 * 1024) },
    verbose: { type: "boolean", default: false },
  },
});

const MUTATIONS = Number(values.mutations);
/** Seconds to wait for an owed reply (default 10; a dropped request costs this much each). */
const REPLY_TIMEOUT_MS = Number(values["reply-timeout"]) * 1000;
const enc = new TextEncoder();
const fatal = new TextDecoder("utf-8", { fatal: true });

// --- seeded randomness (mulberry32) ---
let seed = Number(values.seed) >>> 0;
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (n: number) => Math.floor(random() * n);

// --- valid messages to mutate (no shell: a mutated command must not run anything) ---
function templates(id: number): unknown[] {
  return [
    { jsonrpc: "2.0", id, method: "ping" },
    { jsonrpc: "2.0", id, method: "tools/list" },
    { jsonrpc: "2.0", id, method: "resources/list" },
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "view", arguments: { path: "." } },
    },
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "text_editor",
        arguments: { command: "create", path: `f${id}.txt`, file_text: "one\ntwo\n" },
      },
    },
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "batch_edit",
        arguments: { path: "seed.txt", operations: [{ op: "insert", anchor: -1, content: "x" }] },
      },
    },
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "view", arguments: { path: "seed.txt", search: "a|b", regex: true } },
    },
    { jsonrpc: "2.0", id, method: "tools/call", params: { name: "jobs", arguments: {} } },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id - 1 } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id, result: {} },
  ];
}

const ODD_VALUES: unknown[] = [
  null,
  [],
  {},
  "",
  "x",
  1.5,
  -1,
  2 ** 60,
  true,
  "\u0000\u001b[31m",
  "é€😀",
  "z".repeat(10_000),
];

function randomPath(value: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  let node = value;
  while (node !== null && typeof node === "object" && random() < 0.7) {
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const key = pick(keys as (string | number)[]);
    path.push(key);
    node = (node as Record<string | number, unknown>)[key];
  }
  return path;
}

function mutateValue(value: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const path = randomPath(copy);
  if (path.length === 0) return random() < 0.5 ? [copy] : pick(ODD_VALUES);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  switch (int(4)) {
    case 0:
      delete parent[last];
      break;
    case 1:
      parent[last] = pick(ODD_VALUES);
      break;
    case 2:
      parent[last] = JSON.parse(`${"[".repeat(500)}${"]".repeat(500)}`);
      break;
    default:
      parent[`extra${int(3)}`] = pick(ODD_VALUES);
  }
  return copy;
}

function mutateBytes(bytes: Uint8Array): Uint8Array {
  const out = [...bytes];
  const at = int(out.length + 1);
  switch (int(6)) {
    case 0: // flip a byte (never to a newline: one input stays one line)
      if (out.length > 0) out[at % out.length] = pickByte();
      break;
    case 1:
      out.splice(at, 1);
      break;
    case 2:
      out.splice(at, 0, pickByte());
      break;
    case 3:
      out.length = at;
      break;
    case 4: // invalid UTF-8
      out.splice(at, 0, ...pick([[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8]]));
      break;
    default: // raw control characters
      out.splice(at, 0, pick([0, 1, 8, 0x1b, 0x7f, 0x0d]));
  }
  return new Uint8Array(out);
}

function pickByte(): number {
  const b = int(256);
  return b === 0x0a ? 0x20 : b;
}

/** One mutated input: 1–3 steps on the JSON value and/or its bytes; sometimes two on a line. */
function mutatedInput(id: number): Uint8Array {
  let value = pick(templates(id));
  const steps = 1 + int(3);
  let bytes: Uint8Array | undefined;
  for (let s = 0; s < steps; s++) {
    if (bytes === undefined && random() < 0.5) value = mutateValue(value);
    else bytes = mutateBytes(bytes ?? enc.encode(JSON.stringify(value)));
  }
  bytes ??= enc.encode(JSON.stringify(value));
  if (random() < 0.05) bytes = enc.encode(`${JSON.stringify(value)}${JSON.stringify(value)}`);
  const line = new Uint8Array(bytes.length + 1);
  line.set(bytes);
  line[bytes.length] = 0x0a;
  return line;
}

/**
 * What JSON-RPC 2.0 owes a line, judged independently of the server: nothing for a blank line,
 * a well-formed notification or a response; a reply with the request's id when it has a string
 * or integer id; otherwise a reply with id null.
 */
function owedFor(line: Uint8Array): OwedReply[] {
  let value: unknown;
  try {
    const text = fatal.decode(line.subarray(0, line.length - 1));
    if (text.trim() === "") return [];
    value = JSON.parse(text);
  } catch {
    return [{ id: null }];
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [{ id: null }];
  const m = value as Record<string, unknown>;
  const id = m.id;
  const readable = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  const isResponse = !("method" in m) && ("result" in m || "error" in m);
  if (isResponse) return [];
  const isNotification = !("id" in m) && typeof m.method === "string" && m.jsonrpc === "2.0" &&
    (m.params === undefined || (typeof m.params === "object" && m.params !== null &&
      !Array.isArray(m.params)));
  if (isNotification) return [];
  return [{ id: readable ? id as string | number : null }];
}

// --- the run ---
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-fuzz-" }));
const state = await Deno.makeTempDir({ prefix: "anchorfs-fuzz-state-" });
await Deno.writeTextFile(`${dir}/seed.txt`, "alpha\nbeta\n");
const args = ["--path", dir, "--state-dir", state];
if (values["max-message-bytes"]) args.push("--max-message-bytes", values["max-message-bytes"]);
const start = () =>
  RawServer.start(args, { cwd: dir, ...(values.main !== undefined && { mainTs: values.main }) });

let server = await start();
let tried = 0;
let deaths = 0;
let noReply = 0;
let wrongKind = 0;
let peakKb = 0;
const examples: string[] = [];
let pingId = 0;
const t0 = performance.now();

async function feed(name: string, line: Uint8Array, owed: OwedReply[]): Promise<void> {
  tried++;
  const from = server.messages.length;
  const ping = `bench-ping-${++pingId}`;
  let died = false;
  try {
    await server.write(line);
    await server.write(`{"jsonrpc":"2.0","id":"${ping}","method":"ping"}\n`);
    await server.replyTo(ping, from, REPLY_TIMEOUT_MS);
    for (const o of owed) {
      // Replies with an id may come after the ping (a tool call still running).
      // Owed "id null" is met by any error reply before the ping's: a batch or a line of several
      // messages may be answered per request, by id.
      const found = o.id === null
        ? server.messages.slice(from).find((m) => m.id !== ping && "error" in m)
        : await server.replyTo(o.id, from, REPLY_TIMEOUT_MS).catch(() => undefined);
      if (!found) {
        noReply++;
        if (examples.length < 15) examples.push(`no reply: ${name}`);
      } else if (o.code !== undefined && found.error?.code !== o.code) {
        wrongKind++;
        if (examples.length < 15) {
          examples.push(
            `wrong reply: ${name}: owed ${o.code}, got ${
              JSON.stringify(found.error ?? found.result).slice(0, 120)
            }`,
          );
        }
      }
    }
  } catch {
    // The write failed or the ping went unanswered: dead (exited), or wedged (no answer to a
    // fresh ping either). Either way it is replaced; a wedged server counts as a death too.
    const exited = await Promise.race([
      server.status.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
    ]);
    died = exited ||
      !(await server.request(`probe-${pingId}`, "ping", undefined, 5000).then(
        () => true,
        () => false,
      ));
    if (!died) {
      noReply += Math.max(1, owed.length);
      if (examples.length < 15) examples.push(`no reply (ping unanswered): ${name}`);
    }
  }
  if (!died) {
    try {
      peakKb = Math.max(peakKb, (await server.memoryKb()).peak);
    } catch {
      died = true;
    }
  }
  if (died || !server.alive) {
    deaths++;
    noReply += owed.length;
    if (examples.length < 15) examples.push(`server died: ${name}`);
    await server.close().catch(() => {});
    server = await start();
  }
}

for (const input of MALFORMED_INPUTS) await feed(input.name, input.bytes, input.owed);
// Oversized: past the cap (the SDK's 10 MiB before, ours after): 11,000,000 characters of file.
const big = JSON.stringify({
  method: "tools/call",
  params: {
    name: "text_editor",
    arguments: { command: "create", path: "big.txt", file_text: "x".repeat(11_000_000) },
  },
  jsonrpc: "2.0",
  id: 900_001,
});
await feed("11,000,000-character text_editor create", enc.encode(`${big}\n`), [{ id: 900_001 }]);
for (let i = 0; i < MUTATIONS; i++) {
  const id = 100_000 + i;
  const line = mutatedInput(id);
  const preview = new TextDecoder().decode(line.subarray(0, Math.min(line.length - 1, 100)));
  await feed(`mutation #${i}: ${JSON.stringify(preview)}`, line, owedFor(line));
  if (values.verbose && i % 200 === 0) {
    console.error(`${i} mutations, ${deaths} deaths, ${noReply} without reply`);
  }
}
const seconds = (performance.now() - t0) / 1000;
await server.close();

// What the largest accepted message costs: a create whose line is just under `--largest` bytes
// (default: this checkout's 4 MiB limit), on a fresh server; peak RSS before and after.
const largest = Number(values.largest);
const fresh = await start();
await fresh.request("warm", "tools/call", { name: "view", arguments: { path: "." } });
const idle = await fresh.memoryKb();
const envelope = JSON.stringify({
  jsonrpc: "2.0",
  id: "largest",
  method: "tools/call",
  params: {
    name: "text_editor",
    arguments: { command: "create", path: "largest.txt", file_text: "" },
  },
});
const createLine = envelope.replace(
  '"file_text":""',
  `"file_text":"${"x".repeat(largest - envelope.length - 1)}"`,
);
const tc = performance.now();
await fresh.write(`${createLine}\n`);
const created = await fresh.replyTo("largest", 0, 120_000);
const createMs = performance.now() - tc;
const loaded = await fresh.memoryKb();
await fresh.close();
await Deno.remove(dir, { recursive: true }).catch(() => {});
await Deno.remove(state, { recursive: true }).catch(() => {});

console.log(`server: ${values.main ?? "this checkout"}`);
console.log(
  `inputs tried: ${tried} (${MALFORMED_INPUTS.length} table inputs, 1 oversized, ${MUTATIONS} mutations, seed ${values.seed})`,
);
console.log(`server deaths: ${deaths}`);
console.log(`inputs owed a reply that got none: ${noReply}`);
console.log(`replies with the wrong error code (table inputs): ${wrongKind}`);
console.log(`peak server RSS: ${Math.round(peakKb / 1024)} MB (largest seen across restarts)`);
console.log(`time: ${seconds.toFixed(1)} s`);
console.log(
  `largest message (${createLine.length.toLocaleString("en-US")} bytes, text_editor create): ${
    created.error ? `error ${created.error.code}` : "written"
  } in ${Math.round(createMs)} ms; peak RSS ${Math.round(idle.peak / 1024)} → ${
    Math.round(loaded.peak / 1024)
  } MB`,
);
if (examples.length > 0) console.log(`examples:\n  ${examples.join("\n  ")}`);
