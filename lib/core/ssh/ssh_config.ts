// Resolves a host the way `ssh host` would from ~/.ssh/config text: Host blocks (wildcards,
// negation, first value wins), Include, tokens, and the supported subset of proxying (one
// ProxyJump hop). Pure: reading Include files is a function passed in by the SSH backend.

import { AnchorError } from "../errors.ts";

/** One `Keyword value…` line of a config file. */
interface ConfigLine {
  /** Lower-cased keyword. */
  keyword: string;
  args: string[];
  file: string;
  line: number;
}

/** Where a value came from, for error messages ("~/.ssh/config:12"). */
interface ConfigOrigin {
  file: string;
  line: number;
}

type AgentChoice =
  /** Use $SSH_AUTH_SOCK (OpenSSH's default, also `IdentityAgent SSH_AUTH_SOCK`). */
  | { kind: "env" }
  | { kind: "socket"; path: string }
  | { kind: "none" };

export interface ResolvedHost {
  /** The name as written in the URL (an alias or a real host name). */
  alias: string;
  hostName: string;
  user: string;
  port: number;
  /** Expanded, absolute key paths from `IdentityFile`, in config order. */
  identityFiles: string[];
  /** `IdentitiesOnly yes`: only the configured files (and no default keys) are offered. */
  identitiesOnly: boolean;
  agent: AgentChoice;
  /** Known-hosts files to read; the first one is where new keys are recorded. */
  knownHostsFiles: string[];
  /** `ConnectTimeout` in seconds, when the config sets one. */
  connectTimeoutSeconds?: number;
  /** The one jump host, itself resolved through the config. */
  jump?: ResolvedHost;
  /** Config lines that were read but deliberately not applied (e.g. `Match` blocks). */
  notes: string[];
}

// Exported for tests.
export interface ResolveInput {
  /** The host as written (`box` in ssh://box/path). */
  host: string;
  /** From the URL (`user@`, `:port`); these override the config like `ssh -l`/`-p` do. */
  user?: string;
  port?: number;
  localUser: string;
  homeDir: string;
  /** Text of ~/.ssh/config, or "" when there is none. */
  configText: string;
  configPath: string;
  /** Expands an absolute Include pattern (may contain globs) to the matching files' text. */
  readInclude?: (absolutePattern: string) => { path: string; text: string }[];
  env?: (name: string) => string | undefined;
}

// Exported for tests.
/** Splits config text into keyword lines; quotes group words, `#` starts a comment. */
export function parseConfigText(text: string, file: string): ConfigLine[] {
  const out: ConfigLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "" || raw.startsWith("#")) continue;
    const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:=\s*|\s+)(.*)$/.exec(raw) ??
      /^([A-Za-z][A-Za-z0-9]*)()$/.exec(raw);
    if (!m) {
      throw new AnchorError({
        code: "SSH_CONFIG_INVALID",
        message: `${file}:${i + 1}: cannot read the line ${JSON.stringify(raw)}.`,
        hint:
          `Fix that line (the form is "Keyword value"); \`ssh -G host\` shows how OpenSSH reads the file.`,
        fault: "environment",
      });
    }
    out.push({ keyword: m[1]!.toLowerCase(), args: splitArgs(m[2]!), file, line: i + 1 });
  }
  return out;
}

function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let inQuote = false;
  let started = false;
  for (const ch of text) {
    if (ch === '"') {
      inQuote = !inQuote;
      started = true;
    } else if (!inQuote && /\s/.test(ch)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else if (!inQuote && ch === "#" && !started) {
      break;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

/** OpenSSH pattern: `*` and `?` wildcards, case-insensitive. */
export function matchPattern(pattern: string, text: string): boolean {
  const re = new RegExp(
    "^" +
      pattern.toLowerCase().replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")
        .replace(/\?/g, ".") +
      "$",
  );
  return re.test(text.toLowerCase());
}

// Exported for tests.
/** A `Host` line matches when some pattern matches and no negated (`!`) pattern does. */
export function hostLineMatches(patterns: readonly string[], host: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith("!")) {
      if (matchPattern(p.slice(1), host)) return false;
    } else if (matchPattern(p, host)) {
      matched = true;
    }
  }
  return matched;
}

const MAX_INCLUDE_DEPTH = 16;

/** Collects the lines that apply to `host`, in file order, following Include. */
function applicableLines(input: ResolveInput, host: string, notes: string[]): ConfigLine[] {
  const out: ConfigLine[] = [];
  const walk = (lines: ConfigLine[], startActive: boolean, depth: number) => {
    let active = startActive;
    for (const l of lines) {
      if (l.keyword === "host") {
        active = hostLineMatches(l.args, host);
        continue;
      }
      if (l.keyword === "match") {
        // Decision: only `Match all` is applied. Other criteria (exec, localuser, canonical…)
        // need a shell or OpenSSH's canonicalisation; their blocks are skipped and noted.
        active = l.args.length === 1 && l.args[0]!.toLowerCase() === "all";
        if (!active) notes.push(`${l.file}:${l.line}: "Match ${l.args.join(" ")}" block skipped`);
        continue;
      }
      if (!active) continue;
      if (l.keyword === "include") {
        if (depth >= MAX_INCLUDE_DEPTH) {
          throw new AnchorError({
            code: "SSH_CONFIG_INVALID",
            message: `${l.file}:${l.line}: Include nested deeper than ${MAX_INCLUDE_DEPTH} levels.`,
            hint: "Remove the Include loop from the ssh config.",
            fault: "environment",
          });
        }
        for (const pattern of l.args) {
          const abs = expandTilde(pattern, input.homeDir, `${input.homeDir}/.ssh`);
          for (const inc of input.readInclude?.(abs) ?? []) {
            // An included file's Host lines only affect that file; the outer block resumes.
            walk(parseConfigText(inc.text, inc.path), active, depth + 1);
          }
        }
        continue;
      }
      out.push(l);
    }
  };
  walk(parseConfigText(input.configText, input.configPath), true, 0);
  return out;
}

/** `~/x` → home/x; a relative path is taken relative to `relativeBase` (as Include does). */
function expandTilde(path: string, home: string, relativeBase?: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home}/${path.slice(2)}`;
  if (!path.startsWith("/") && relativeBase !== undefined) return `${relativeBase}/${path}`;
  return path;
}

interface TokenValues {
  /** %h: the remote host name. */
  h: string;
  /** %r: the remote user. */
  r: string;
  /** %u: the local user. */
  u: string;
  /** %p: the port. */
  p: string;
  /** %d: the local home directory. */
  d: string;
  /** %n: the host as written before HostName. */
  n: string;
}

/** Expands OpenSSH `%` tokens; an unknown token is an error naming the line. */
function expandTokens(value: string, tokens: TokenValues, origin: ConfigOrigin): string {
  return value.replace(/%(.)/g, (_, t: string) => {
    if (t === "%") return "%";
    if (t in tokens) return tokens[t as keyof TokenValues];
    throw new AnchorError({
      code: "SSH_CONFIG_UNSUPPORTED",
      message: `${origin.file}:${origin.line}: the token "%${t}" is not supported by anchorfs.`,
      hint: "Supported tokens: %h %r %u %p %d %n %%. Write the value out in the ssh config.",
      fault: "environment",
    });
  });
}

/** Expands `${VAR}` environment references (IdentityAgent, IdentityFile). */
function expandEnv(value: string, env: ResolveInput["env"], origin: ConfigOrigin): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = env?.(name);
    if (v === undefined) {
      throw new AnchorError({
        code: "SSH_CONFIG_INVALID",
        message: `${origin.file}:${origin.line}: the environment variable ${name} is not set.`,
        hint: `Set ${name} or change that line of the ssh config.`,
        fault: "environment",
      });
    }
    return v;
  });
}

// Exported for tests.
/** `[user@]host[:port]` or `ssh://[user@]host[:port]` of a ProxyJump value. */
export function parseJumpSpec(
  spec: string,
): { host: string; user?: string; port?: number } | null {
  const m = /^(?:ssh:\/\/)?(?:([^@]+)@)?(\[[^\]\s]+\]|[^:@/\s]+)(?::([0-9]{1,5}))?\/?$/.exec(spec);
  if (!m) return null;
  const out: { host: string; user?: string; port?: number } = {
    host: m[2]!.replace(/^\[|\]$/g, ""),
  };
  if (m[1]) out.user = m[1];
  if (m[3]) out.port = Number(m[3]);
  return out;
}

function unsupported(message: string, origin: ConfigOrigin | undefined): AnchorError {
  return new AnchorError({
    code: "SSH_CONFIG_UNSUPPORTED",
    message: `${message}${origin ? ` (${origin.file}:${origin.line})` : ""}.`,
    hint: "anchorfs supports direct connections and ProxyJump with exactly one hop " +
      '("ProxyJump [user@]bastion[:port]", the bastion resolved through the same config). ' +
      "ProxyCommand and multi-hop chains are not supported: configure a single ProxyJump " +
      "host, or forward a local port with `ssh -L 2222:target:22 bastion` and use " +
      "ssh://localhost:2222/path.",
    fault: "environment",
  });
}

interface Resolution {
  host: ResolvedHost;
  proxyJump?: { spec: string; origin: ConfigOrigin };
}

/** The lines that apply to one host: the first value of each keyword, plus the repeatable ones. */
interface HostLines {
  first: Map<string, ConfigLine>;
  identityLines: ConfigLine[];
  knownHostLines: ConfigLine[];
  value(keyword: string): string | undefined;
  origin(keyword: string): ConfigOrigin | undefined;
}

function hostLines(lines: readonly ConfigLine[]): HostLines {
  const first = new Map<string, ConfigLine>();
  const identityLines: ConfigLine[] = [];
  const knownHostLines: ConfigLine[] = [];
  for (const l of lines) {
    if (l.keyword === "identityfile") identityLines.push(l);
    else if (!first.has(l.keyword)) first.set(l.keyword, l);
    if (l.keyword === "userknownhostsfile" && knownHostLines.length === 0) knownHostLines.push(l);
  }
  return {
    first,
    identityLines,
    knownHostLines,
    value: (k) => first.get(k)?.args[0],
    origin: (k) => {
      const l = first.get(k);
      return l ? { file: l.file, line: l.line } : undefined;
    },
  };
}

function resolvePort(input: ResolveInput, config: HostLines): number {
  if (input.port !== undefined) return input.port;
  const raw = config.value("port");
  if (raw === undefined) return 22;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    const o = config.origin("port")!;
    throw new AnchorError({
      code: "SSH_CONFIG_INVALID",
      message: `${o.file}:${o.line}: Port ${JSON.stringify(raw)} is not a number from 1 to 65535.`,
      hint: "Fix the Port line of the ssh config (service names are not supported).",
      fault: "environment",
    });
  }
  return Number(raw);
}

function resolveIdentityFiles(
  input: ResolveInput,
  config: HostLines,
  tokens: TokenValues,
): string[] {
  const identityFiles: string[] = [];
  for (const l of config.identityLines) {
    for (const arg of l.args.slice(0, 1)) {
      if (arg.toLowerCase() === "none") continue;
      const o = { file: l.file, line: l.line };
      const path = expandTilde(
        expandTokens(expandEnv(arg, input.env, o), tokens, o),
        input.homeDir,
        input.homeDir,
      );
      if (!identityFiles.includes(path)) identityFiles.push(path);
    }
  }
  return identityFiles;
}

function resolveAgent(input: ResolveInput, config: HostLines, tokens: TokenValues): AgentChoice {
  const agentRaw = config.value("identityagent");
  if (agentRaw === undefined) return { kind: "env" };
  const o = config.origin("identityagent")!;
  if (agentRaw.toLowerCase() === "none") return { kind: "none" };
  if (agentRaw === "SSH_AUTH_SOCK") return { kind: "env" };
  if (/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(agentRaw)) {
    const v = input.env?.(agentRaw.slice(1));
    return v ? { kind: "socket", path: v } : { kind: "none" };
  }
  return {
    kind: "socket",
    path: expandTilde(expandTokens(expandEnv(agentRaw, input.env, o), tokens, o), input.homeDir),
  };
}

function resolveKnownHosts(input: ResolveInput, config: HostLines, tokens: TokenValues): string[] {
  const line = config.knownHostLines[0];
  if (line === undefined) {
    return [`${input.homeDir}/.ssh/known_hosts`, `${input.homeDir}/.ssh/known_hosts2`];
  }
  const o = { file: line.file, line: line.line };
  return line.args.filter((a) => a.toLowerCase() !== "none").map((a) =>
    expandTilde(expandTokens(a, tokens, o), input.homeDir, input.homeDir)
  );
}

/** ProxyJump and ProxyCommand exclude each other; like OpenSSH the first one set wins. */
function resolveProxy(input: ResolveInput, config: HostLines): Resolution["proxyJump"] {
  const jumpLine = config.first.get("proxyjump");
  const commandLine = config.first.get("proxycommand");
  const commandActive = commandLine && commandLine.args[0]?.toLowerCase() !== "none";
  const jumpActive = jumpLine && jumpLine.args[0]?.toLowerCase() !== "none";
  if (commandActive && (!jumpActive || commandLine.line <= jumpLine.line)) {
    throw unsupported(
      `Host ${JSON.stringify(input.host)} uses ProxyCommand ${
        JSON.stringify(commandLine.args.join(" "))
      }, which anchorfs does not run`,
      { file: commandLine.file, line: commandLine.line },
    );
  }
  if (!jumpActive) return undefined;
  return {
    spec: jumpLine.args.join(" "),
    origin: { file: jumpLine.file, line: jumpLine.line },
  };
}

function resolveOne(input: ResolveInput, notes: string[]): Resolution {
  const config = hostLines(applicableLines(input, input.host, notes));
  const port = resolvePort(input, config);
  const user = input.user ?? config.value("user") ?? input.localUser;
  const baseTokens = {
    h: input.host,
    r: user,
    u: input.localUser,
    p: String(port),
    d: input.homeDir,
    n: input.host,
  };
  const hostNameRaw = config.value("hostname");
  const hostName = hostNameRaw === undefined
    ? input.host
    : expandTokens(hostNameRaw, baseTokens, config.origin("hostname")!);
  const tokens = { ...baseTokens, h: hostName };

  const host: ResolvedHost = {
    alias: input.host,
    hostName,
    user,
    port,
    identityFiles: resolveIdentityFiles(input, config, tokens),
    identitiesOnly: config.value("identitiesonly")?.toLowerCase() === "yes",
    agent: resolveAgent(input, config, tokens),
    knownHostsFiles: resolveKnownHosts(input, config, tokens),
    notes,
  };
  const timeout = config.value("connecttimeout");
  if (timeout !== undefined && /^[0-9]+$/.test(timeout) && Number(timeout) > 0) {
    host.connectTimeoutSeconds = Number(timeout);
  }
  const proxyJump = resolveProxy(input, config);
  return proxyJump ? { host, proxyJump } : { host };
}

/**
 * Resolves `input.host` through the config like `ssh host` would. Throws AnchorError
 * SSH_CONFIG_UNSUPPORTED for ProxyCommand and for jump chains longer than one hop.
 */
export function resolveSshHost(input: ResolveInput): ResolvedHost {
  const { host, proxyJump } = resolveOne(input, []);
  if (!proxyJump) return host;
  const { spec, origin } = proxyJump;
  if (spec.includes(",")) {
    throw unsupported(
      `Host ${JSON.stringify(input.host)} has the multi-hop ProxyJump chain ${
        JSON.stringify(spec)
      }`,
      origin,
    );
  }
  const parsed = parseJumpSpec(spec);
  if (!parsed) {
    throw new AnchorError({
      code: "SSH_CONFIG_INVALID",
      message: `${origin.file}:${origin.line}: cannot read ProxyJump ${JSON.stringify(spec)}.`,
      hint: 'Write it as "ProxyJump [user@]host[:port]".',
      fault: "environment",
    });
  }
  const jumpInput: ResolveInput = { ...input, host: parsed.host };
  delete jumpInput.user;
  delete jumpInput.port;
  if (parsed.user !== undefined) jumpInput.user = parsed.user;
  if (parsed.port !== undefined) jumpInput.port = parsed.port;
  const jump = resolveOne(jumpInput, host.notes);
  if (jump.proxyJump) {
    throw unsupported(
      `Host ${JSON.stringify(input.host)} jumps through ${
        JSON.stringify(parsed.host)
      }, which itself has ProxyJump ${JSON.stringify(jump.proxyJump.spec)}: a chain of two hops`,
      jump.proxyJump.origin,
    );
  }
  host.jump = jump.host;
  return host;
}

/** The key files OpenSSH tries when the config names none, in its order. */
export function defaultIdentityFiles(homeDir: string): string[] {
  return ["id_rsa", "id_ecdsa", "id_ed25519"].map((n) => `${homeDir}/.ssh/${n}`);
}
