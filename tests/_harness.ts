// Test harness for protocol tests: starts the real server (`deno run -A main.ts mcp`) as a
// child process and connects the SDK's real client over stdio, v1 (`initialize`) or v2 (pinned
// to 2026-07-28). Release with `await using`.

import { fileURLToPath } from "node:url";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";

/** This checkout as a file-system path (`fileURLToPath`: a drive-letter path on Windows). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, "");
export const MAIN_TS = `${REPO_ROOT}/main.ts`;

export type ClientKind = "v1" | "v2";
export const CLIENT_KINDS: readonly ClientKind[] = ["v1", "v2"];

export interface StartOptions {
  client: ClientKind;
  /** Extra arguments after `mcp`, e.g. ["--path", dir]. */
  args?: string[];
  /** The main.ts to run (default: this checkout's), e.g. another checkout for a benchmark. */
  main?: string;
  /** Extra environment for the server (DENO_DIR, HOME and PATH are passed through). */
  env?: Record<string, string>;
  cwd?: string;
  /** A command that runs the server, e.g. ["setpriv", ...flags]: the deno command line follows. */
  launcher?: string[];
}

export interface CallResult {
  text: string;
  isError: boolean;
  // deno-lint-ignore no-explicit-any
  raw: any;
}

export interface TestServer extends AsyncDisposable {
  kind: ClientKind;
  // deno-lint-ignore no-explicit-any
  client: any;
  // deno-lint-ignore no-explicit-any
  call(name: string, args?: Record<string, unknown>, options?: any): Promise<CallResult>;
  /** The server process id (for checking that it and its children exit). */
  pid: number | undefined;
  /** What the server wrote to stderr so far (complete after close). */
  stderr(): string;
  close(): Promise<void>;
}

/** The environment the spawned server needs: stdio client transports pass only a few vars. */
/**
 * Test-only timing for every server and CLI run the tests spawn (lib/test_timing.ts): a kill's
 * TERM → KILL grace of 0.5 s instead of 2 s, so tests of TERM-ignoring processes do not wait out
 * the real default. A test that needs other timing passes its own value in `env`.
 */
export const TEST_TIMING_ENV: Record<string, string> = {
  ANCHORFS_TEST_KILL_GRACE_MS: "500",
  // Not timing, but wanted by every run the same way: `deno run` otherwise looks up
  // dl.deno.land (its update check), and tests reach no host but loopback.
  DENO_NO_UPDATE_CHECK: "1",
};

export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const key of [
      "HOME",
      "PATH",
      "DENO_DIR",
      "XDG_STATE_HOME",
      "TMPDIR",
      "USER",
      "LOGNAME",
      "SSH_AUTH_SOCK",
    ]
  ) {
    const v = Deno.env.get(key);
    if (v !== undefined) env[key] = v;
  }
  env.NO_COLOR = "1";
  return { ...env, ...TEST_TIMING_ENV, ...extra };
}

export async function startServer(options: StartOptions): Promise<TestServer> {
  // A bundle (dist/anchorfs.js) runs as the npm launcher runs it: no deno.json or lock file from
  // the working directory (with this checkout's, a bundle server ran 28 threads and idled 93 MB).
  const bundle = options.main?.endsWith(".js") === true;
  const deno = [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    ...(bundle ? ["--no-config", "--no-lock", "--no-code-cache"] : []),
    options.main ?? MAIN_TS,
    "mcp",
    ...(options.args ?? []),
  ];
  const line = [...(options.launcher ?? []), ...deno];
  const params = {
    command: line[0]!,
    args: line.slice(1),
    env: serverEnv(options.env),
    cwd: options.cwd ?? REPO_ROOT,
    stderr: "pipe" as const,
  };
  // deno-lint-ignore no-explicit-any
  let client: any;
  // deno-lint-ignore no-explicit-any
  let transport: any;
  if (options.client === "v1") {
    transport = new V1StdioTransport(params);
    client = new V1Client({ name: "anchorfs-test-v1", version: "1.0.0" }, { capabilities: {} });
  } else {
    transport = new V2StdioTransport(params);
    client = new V2Client(
      { name: "anchorfs-test-v2", version: "2.0.0" },
      { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
  }
  const stderrChunks: string[] = [];
  await client.connect(transport);
  transport.stderr?.on?.("data", (d: Uint8Array) => stderrChunks.push(new TextDecoder().decode(d)));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => {});
  };
  return {
    kind: options.client,
    client,
    pid: transport.pid ?? undefined,
    stderr: () => stderrChunks.join(""),
    async call(name, args = {}, callOptions) {
      // v1's callTool takes (params, resultSchema?, options?); v2's takes (params, options?).
      const raw = options.client === "v1"
        ? await client.callTool({ name, arguments: args }, undefined, callOptions)
        : await client.callTool({ name, arguments: args }, callOptions);
      // deno-lint-ignore no-explicit-any
      const text = (raw.content ?? []).filter((c: any) => c.type === "text").map((c: any) => c.text)
        .join("\n");
      return { text, isError: raw.isError === true, raw };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A fresh temporary directory, removed on dispose. */
export async function tempDir(
  prefix = "anchorfs-test-",
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** Writes a tree of files under `root` ({"a/b.txt": "content"}). */
export async function writeTree(
  root: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
}

/** Runs the CLI (`deno run -A main.ts ...args`) and returns its exit code and output. */
export async function runCliProcess(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN_TS, ...args],
    cwd: options.cwd ?? REPO_ROOT,
    env: { NO_COLOR: "1", ...TEST_TIMING_ENV, ...(options.env ?? {}) },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
