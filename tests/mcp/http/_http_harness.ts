// Test harness for the HTTP server: starts `anchorfs mcp --http 127.0.0.1:0` as a child process,
// reads its URL from stderr, and connects the real SDK clients (v1 `initialize`, v2 pinned to
// 2026-07-28) over Streamable HTTP with a bearer token. Release with `await using`.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp"
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type CallResult, type ClientKind, MAIN_TS, REPO_ROOT, serverEnv } from "../../_harness.ts";

export interface HttpServer extends AsyncDisposable {
  url: string;
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  connect(kind: ClientKind, token?: string): Promise<HttpClient>;
  /** Ends the server with `signal` and waits for its exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

export interface HttpClient extends AsyncDisposable {
  // deno-lint-ignore no-explicit-any
  client: any;
  // deno-lint-ignore no-explicit-any
  transport: any;
  // deno-lint-ignore no-explicit-any
  call(name: string, args?: Record<string, unknown>, options?: any): Promise<CallResult>;
  close(): Promise<void>;
}

export const TOKEN_A = "token-a-0123456789abcdef";
export const TOKEN_B = "token-b-0123456789abcdef";

export async function startHttpServer(
  options: {
    args?: string[];
    env?: Record<string, string>;
    tokens?: string[];
    /** Runs the server under `ulimit -n` of this many open files (soft and hard). */
    fdLimit?: number;
    /** The main.ts to run (default: this checkout's), e.g. another checkout for a benchmark. */
    main?: string;
  } = {},
): Promise<HttpServer> {
  const state = await Deno.makeTempDir({ prefix: "anchorfs-http-state-" });
  const tokenFile = `${state}/tokens`;
  await Deno.writeTextFile(tokenFile, (options.tokens ?? [TOKEN_A, TOKEN_B]).join("\n") + "\n");
  const command = [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    options.main ?? MAIN_TS,
    "mcp",
    "--http",
    "127.0.0.1:0",
    "--token-file",
    tokenFile,
    "--state-dir",
    state,
    ...(options.args ?? []),
  ];
  // exec keeps the pid the server's: signals and /proc reach it, not a shell.
  const [program, ...args] = options.fdLimit === undefined
    ? command
    : ["sh", "-c", `ulimit -n ${options.fdLimit} && exec "$@"`, "sh", ...command];
  const child = new Deno.Command(program!, {
    args,
    cwd: REPO_ROOT,
    env: serverEnv(options.env),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const decoder = new TextDecoder();
  let found: (url: string) => void = () => {};
  const urlSeen = new Promise<string>((resolve) => (found = resolve));
  const reading = (async () => {
    for await (const chunk of child.stderr) {
      err += decoder.decode(chunk, { stream: true });
      const m = /serving MCP over HTTP at (\S+)/.exec(err);
      if (m) found(m[1]!);
    }
  })();
  const status = child.status;
  const url = await Promise.race([
    urlSeen,
    status.then((s) => {
      throw new Error(`server exited (${s.code}) before listening:\n${err}`);
    }),
  ]);
  const clients: HttpClient[] = [];
  let exit: Promise<number> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!exit) {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      exit = status.then(async (s) => {
        await reading.catch(() => {});
        return s.code;
      });
    }
    return exit;
  };
  return {
    url,
    pid: child.pid,
    stderr: () => err,
    async connect(kind, token = TOKEN_A) {
      const client = await connectClient(url, kind, token);
      clients.push(client);
      return client;
    },
    stop,
    async [Symbol.asyncDispose]() {
      for (const c of clients) await c.close();
      await stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    },
  };
}

export async function connectClient(
  url: string,
  kind: ClientKind,
  token: string,
): Promise<HttpClient> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  // deno-lint-ignore no-explicit-any
  let client: any, transport: any;
  if (kind === "v1") {
    transport = new V1HttpTransport(new URL(url), { requestInit });
    client = new V1Client({ name: "anchorfs-http-v1", version: "1.0.0" }, { capabilities: {} });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
    client = new V2Client(
      { name: "anchorfs-http-v2", version: "2.0.0" },
      { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
  }
  await client.connect(transport);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => {});
  };
  return {
    client,
    transport,
    async call(name, args = {}, callOptions) {
      // v1's callTool takes a result schema before the options; v2's takes the options.
      const raw = kind === "v1"
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
