// The MCP client configurations the docs show: fenced `json`/`toml` blocks that configure a server
// for a client named in bold in the prose above them (**VS Code**, **Codex**, ...). Each is parsed
// as its client parses it and checked for the keys that client reads, and its command line for
// anchorfs's own flags. Text scanning and checks only: nothing runs.

import { parse as parseToml } from "smol-toml";

/** How one client reads its configuration file. */
interface ClientFormat {
  format: "json" | "toml";
  /** The key holding the servers, by name. */
  key: string;
  /** Keys a stdio entry may hold (command and args are required). */
  stdio: readonly string[];
  /** Keys a remote (HTTP) entry may hold; the first one is the URL. */
  http: readonly string[];
  /** Keys an entry must hold with exactly this value. */
  fixed?: Readonly<Record<string, { stdio?: string; http?: string }>>;
}

const MCP_SERVERS_STDIO = ["command", "args", "env"];

/** The clients the docs configure, by the name they are called in bold. */
export const CLIENTS: Readonly<Record<string, ClientFormat>> = {
  "Claude Desktop": { format: "json", key: "mcpServers", stdio: MCP_SERVERS_STDIO, http: [] },
  Cursor: {
    format: "json",
    key: "mcpServers",
    stdio: [...MCP_SERVERS_STDIO, "envFile"],
    http: ["url", "headers"],
  },
  Windsurf: {
    format: "json",
    key: "mcpServers",
    stdio: [...MCP_SERVERS_STDIO, "disabled"],
    http: ["serverUrl", "headers"],
  },
  "Gemini CLI": {
    format: "json",
    key: "mcpServers",
    stdio: [...MCP_SERVERS_STDIO, "cwd", "timeout", "trust"],
    http: ["httpUrl", "headers", "timeout", "trust"],
  },
  Cline: {
    format: "json",
    key: "mcpServers",
    stdio: [...MCP_SERVERS_STDIO, "disabled", "autoApprove"],
    http: ["url", "headers", "type", "disabled", "autoApprove"],
  },
  "VS Code": {
    format: "json",
    key: "servers",
    stdio: ["type", ...MCP_SERVERS_STDIO, "envFile"],
    http: ["url", "type", "headers"],
    fixed: { type: { stdio: "stdio", http: "http" } },
  },
  Zed: {
    format: "json",
    key: "context_servers",
    stdio: ["source", ...MCP_SERVERS_STDIO, "enabled"],
    http: ["url", "headers", "enabled"],
    fixed: { source: { stdio: "custom" } },
  },
  Codex: {
    format: "toml",
    key: "mcp_servers",
    stdio: [...MCP_SERVERS_STDIO, "cwd", "startup_timeout_sec", "tool_timeout_sec", "enabled"],
    http: ["url", "bearer_token_env_var", "http_headers", "env_http_headers", "enabled"],
  },
};

/** The keys that hold servers in some client's file: a block with one is a client config. */
const SERVER_KEYS = new Set(Object.values(CLIENTS).map((c) => c.key));

export interface ClientConfig {
  /** The clients named in bold in the prose before the block. */
  clients: string[];
  lang: string;
  text: string;
  line: number;
}

/**
 * Every fenced `json`, `jsonc` or `toml` block, with the known clients named in bold in the prose
 * since the previous block or heading.
 */
export function fencedConfigs(markdown: string): ClientConfig[] {
  const out: ClientConfig[] = [];
  let prose: string[] = [];
  let fence: { lang: string; start: number; body: string[] } | undefined;
  for (const [i, line] of markdown.split("\n").entries()) {
    const mark = /^\s*```(\w*)/.exec(line);
    if (fence) {
      if (mark) {
        if (["json", "jsonc", "toml"].includes(fence.lang)) {
          const named = [...prose.join("\n").matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!);
          out.push({
            clients: named.filter((n) => n in CLIENTS),
            lang: fence.lang,
            text: fence.body.join("\n"),
            line: fence.start + 1,
          });
        }
        fence = undefined;
        prose = [];
      } else fence.body.push(line);
    } else if (mark) fence = { lang: mark[1]!, start: i + 1, body: [] };
    else if (/^#{1,6} /.test(line)) prose = [];
    else prose.push(line);
  }
  return out;
}

/** Parses a block as its language; throws with the parser's message. */
export function parseConfig(config: ClientConfig): unknown {
  return config.lang === "toml" ? parseToml(config.text) : JSON.parse(config.text);
}

/** True when the parsed block holds servers under some client's key. */
export function isClientConfig(parsed: unknown): boolean {
  return isObject(parsed) && Object.keys(parsed).some((k) => SERVER_KEYS.has(k));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isStrings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string");

/**
 * What is wrong with `parsed` as `client`'s configuration, one line each (none: it is right).
 * `checkMcpArgs` checks the words after `anchorfs` (`mcp --path ...`) and returns a problem.
 */
export function configProblems(
  client: string,
  config: ClientConfig,
  parsed: unknown,
  checkMcpArgs: (args: string[]) => string | undefined,
): string[] {
  const format = CLIENTS[client]!;
  if (config.lang.replace("jsonc", "json") !== format.format) {
    return [`${client} reads ${format.format}, the block is ${config.lang}`];
  }
  const servers = isObject(parsed) ? parsed[format.key] : undefined;
  if (!isObject(servers)) return [`${client} reads its servers from "${format.key}"`];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (!isObject(entry)) {
      problems.push(`${name}: not an object`);
      continue;
    }
    problems.push(...entryProblems(format, entry, checkMcpArgs).map((p) => `${name}: ${p}`));
  }
  return problems;
}

function entryProblems(
  format: ClientFormat,
  entry: Record<string, unknown>,
  checkMcpArgs: (args: string[]) => string | undefined,
): string[] {
  const remote = "command" in entry ? false : format.http.length > 0 && format.http[0]! in entry;
  const allowed = remote ? format.http : format.stdio;
  const problems = Object.keys(entry).filter((k) => !allowed.includes(k)).map((k) =>
    `${JSON.stringify(k)} is not a key of a ${remote ? "remote" : "stdio"} entry here (it takes ${
      allowed.join(", ")
    })`
  );
  for (const [key, values] of Object.entries(format.fixed ?? {})) {
    const want = remote ? values.http : values.stdio;
    if (want !== undefined && entry[key] !== want) {
      problems.push(`needs "${key}": ${JSON.stringify(want)}`);
    }
  }
  if ("env" in entry && !(isObject(entry.env) && Object.values(entry.env).every(isString))) {
    problems.push("env must map names to strings");
  }
  if (remote) {
    const url = entry[format.http[0]!];
    if (typeof url !== "string" || !/^https?:\/\/[^/]+\/mcp$/.test(url)) {
      problems.push(
        `${format.http[0]} ${JSON.stringify(url)} is not anchorfs's http://HOST:PORT/mcp`,
      );
    }
    return problems;
  }
  if (typeof entry.command !== "string" || !isStrings(entry.args)) {
    return [...problems, "a stdio entry needs a command string and an args list of strings"];
  }
  const words = anchorfsWords(entry.command, entry.args as string[]);
  if (typeof words === "string") return [...problems, words];
  const problem = checkMcpArgs(words);
  return problem
    ? [...problems, `${[entry.command, ...entry.args as string[]].join(" ")}: ${problem}`]
    : problems;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

/**
 * The words a client's command line hands to anchorfs: `anchorfs ARGS`, `npx -y anchorfs ARGS`,
 * `cmd /c npx -y anchorfs ARGS` (Windows) or `deno run -A …/main.ts ARGS` (a checkout); a
 * sentence saying why when it is none of them.
 */
export function anchorfsWords(command: string, args: readonly string[]): string[] | string {
  const after = (prefix: readonly string[]) =>
    prefix.every((w, i) => args[i] === w) ? args.slice(prefix.length) : undefined;
  const words = command === "anchorfs"
    ? [...args]
    : command === "npx"
    ? after(["-y", "anchorfs"])
    : command === "cmd"
    ? after(["/c", "npx", "-y", "anchorfs"])
    : command === "deno" && args[0] === "run" && args[1] === "-A" && args[2]?.endsWith("main.ts")
    ? args.slice(3)
    : undefined;
  if (words === undefined) {
    return `${JSON.stringify(command)} ${
      JSON.stringify(args)
    } does not start anchorfs (anchorfs, ` +
      'npx with "-y", "anchorfs", cmd with "/c", "npx", "-y", "anchorfs", or deno run -A main.ts)';
  }
  return words;
}
