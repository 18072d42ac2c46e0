// Opens one authenticated ssh2 connection to a resolved host: agent → IdentityFiles → default
// keys, known_hosts verification with accept-new, one ProxyJump hop via forwardOut. Turns
// every failure into an AnchorError naming the host, user, port, keys tried and the next step.

import { Buffer } from "node:buffer";
import type {
  AnyAuthMethod,
  Client as SshClient,
  ConnectConfig,
  ParsedKey,
} from "./ssh2_types.d.ts";
import { AnchorError } from "../../core/errors.ts";
import { shellQuote } from "../../core/shell/shell_quote.ts";
import { defaultIdentityFiles, type ResolvedHost } from "../../core/ssh/ssh_config.ts";
import { sshLocations, WINDOWS_SSH_AGENT_PIPE } from "../../core/platform/platform.ts";
import { currentPlatform } from "../platform/current_platform.ts";
import {
  checkHostKey,
  fingerprintSha256,
  formatKnownHostLine,
  keyTypeOfBlob,
  type KnownHostEntry,
  knownHostName,
  knownKeyTypes,
  parseKnownHosts,
} from "../../core/ssh/known_hosts.ts";
import { pathRulesFor } from "../../core/path/path_rules.ts";
import { onFirstUse } from "../../core/first_use.ts";

type Ssh2 = typeof import("./ssh2_types.d.ts");

/**
 * ssh2 and its crypto load on the first connection, not when the server starts: most sessions
 * never use ssh, and loading it made up a large share of the time to answer `initialize`. A load
 * that fails (no descriptor free) is that connection's error; the next one loads again.
 */
const loadSsh2 = onFirstUse("ssh2", async (): Promise<Ssh2> => {
  // @ts-types="./ssh2_types.d.ts"
  const m = await import("ssh2");
  return (m.default ?? m) as Ssh2;
});

export interface ConnectOptions {
  timeoutMs: number;
  homeDir: string;
  env: (name: string) => string | undefined;
  /** Called when accept-new records a key (for logs). */
  onNewHostKey?: (file: string, line: string) => void;
  /** Gives up a connect in progress (the pool is closing): its socket is destroyed. */
  signal?: AbortSignal;
}

interface OpenedConnection {
  client: SshClient;
  /** The bastion connection when the host is reached through ProxyJump. */
  jump?: SshClient;
}

/** `user@host:port` (+ ` via …`) as the person would recognise it. */
export function describeHost(host: ResolvedHost): string {
  const self = `${host.user}@${host.hostName}:${host.port}`;
  const alias = host.alias !== host.hostName ? `"${host.alias}" (${self})` : self;
  return host.jump ? `${alias} via ProxyJump ${describeHost(host.jump)}` : alias;
}

interface AuthPlan {
  methods: AnyAuthMethod[];
  /** What each method is, for error messages ("agent at /tmp/…", "key ~/.ssh/id_ed25519"). */
  labels: string[];
  /** Keys that need a passphrase and were skipped. */
  encrypted: string[];
  /** Configured IdentityFiles that do not exist or cannot be read. */
  unreadable: string[];
}

function tilde(path: string, home: string): string {
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function planAuth(host: ResolvedHost, options: ConnectOptions): Promise<AuthPlan> {
  const plan: AuthPlan = { methods: [], labels: [], encrypted: [], unreadable: [] };
  // SSH_AUTH_SOCK, or on Windows the OpenSSH agent's named pipe (lib/core/platform/platform.ts).
  const agentPath = host.agent.kind === "socket"
    ? host.agent.path
    : host.agent.kind === "env"
    ? sshLocations(currentPlatform(), options.env).agent
    : undefined;
  // A named pipe cannot be stat'ed; ssh2 reports a missing agent and moves on to keys.
  if (agentPath && (agentPath === WINDOWS_SSH_AGENT_PIPE || await exists(agentPath))) {
    plan.methods.push({ type: "agent", username: host.user, agent: agentPath });
    plan.labels.push(`the agent at ${agentPath}`);
  }
  const files = [...host.identityFiles];
  if (!host.identitiesOnly) {
    for (const f of defaultIdentityFiles(options.homeDir)) if (!files.includes(f)) files.push(f);
  }
  for (const file of files) {
    const configured = host.identityFiles.includes(file);
    let data: Uint8Array;
    try {
      data = await Deno.readFile(file);
    } catch {
      if (configured) plan.unreadable.push(tilde(file, options.homeDir));
      continue;
    }
    const { utils } = await loadSsh2();
    const parsed = utils.parseKey(Buffer.from(data));
    if (parsed instanceof Error) {
      if (/passphrase|encrypted/i.test(parsed.message)) {
        plan.encrypted.push(tilde(file, options.homeDir));
      } else if (configured) {
        plan.unreadable.push(`${tilde(file, options.homeDir)} (${parsed.message})`);
      }
      continue;
    }
    const key = (Array.isArray(parsed) ? parsed[0] : parsed) as ParsedKey;
    plan.methods.push({ type: "publickey", username: host.user, key });
    plan.labels.push(`key ${tilde(file, options.homeDir)} (${key.type})`);
  }
  return plan;
}

function hostKeyNames(host: ResolvedHost): string[] {
  const names = [knownHostName(host.hostName, host.port)];
  if (host.alias !== host.hostName) names.push(knownHostName(host.alias, host.port));
  return names;
}

async function readKnownHosts(files: string[]): Promise<KnownHostEntry[]> {
  const entries: KnownHostEntry[] = [];
  for (const file of [...files, "/etc/ssh/ssh_known_hosts"]) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch {
      continue;
    }
    entries.push(...parseKnownHosts(text, file));
  }
  return entries;
}

async function recordHostKey(file: string, line: string): Promise<void> {
  // A local file: `%USERPROFILE%\.ssh\known_hosts` on Windows.
  const folder = pathRulesFor(currentPlatform()).parent(file);
  await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
  let prefix = "";
  try {
    const current = await Deno.readTextFile(file);
    if (current.length > 0 && !current.endsWith("\n")) prefix = "\n";
  } catch {
    // A new file.
  }
  await Deno.writeTextFile(file, `${prefix}${line}\n`, { append: true, create: true, mode: 0o600 });
}

const HOST_KEY_ALGOS_FOR_TYPE: Record<string, string[]> = {
  "ssh-rsa": ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"],
};

/** What a host key check refused, for the connection's error handler to report. */
interface HostKeyRefusal {
  error?: AnchorError;
}

/**
 * The hostVerifier ssh2 calls: accepts a known key, records a new one (accept-new), and refuses a
 * changed or revoked one, leaving the error in `refusal`.
 */
function hostKeyVerifier(
  host: ResolvedHost,
  options: ConnectOptions,
  known: KnownHostEntry[],
  names: string[],
  refusal: HostKeyRefusal,
): (key: Uint8Array, verify: (ok: boolean) => void) => void {
  return (key, verify) => {
    const blob = new Uint8Array(key);
    const decision = checkHostKey(known, names, blob);
    if (decision.kind === "known") return verify(true);
    const fp = fingerprintSha256(blob);
    const type = keyTypeOfBlob(blob);
    if (decision.kind === "new") {
      const file = host.knownHostsFiles[0];
      if (!file) return verify(true);
      const line = formatKnownHostLine(names[0]!, blob);
      recordHostKey(file, line).then(() => {
        options.onNewHostKey?.(file, line);
        verify(true);
      }, (e) => {
        refusal.error = new AnchorError({
          code: "SSH_HOST_KEY_UNRECORDED",
          message: `Cannot record the host key of ${describeHost(host)} (${type} ${fp}) in ${
            JSON.stringify(file)
          }: ${(e as Error).message}`,
          hint: "Make the known_hosts file writable, or run `ssh " + host.alias +
            "` once in a terminal to record the key, then retry.",
          fault: "environment",
        });
        verify(false);
      });
      return;
    }
    const where = decision.kind === "revoked" ? [decision.entry] : decision.entries;
    const lines = where.map((e) => `${e.file}:${e.line}`).join(", ");
    refusal.error = new AnchorError({
      code: decision.kind === "revoked" ? "SSH_HOST_KEY_REVOKED" : "SSH_HOST_KEY_CHANGED",
      message: decision.kind === "revoked"
        ? `The host key of ${
          describeHost(host)
        } (${type} ${fp}) is marked @revoked at ${lines}; refusing to connect.`
        : `The host key of ${describeHost(host)} has CHANGED: it now presents ${type} ${fp}, ` +
          `which does not match the key recorded at ${lines}. Refusing to connect: this can ` +
          "be a man-in-the-middle attack, or the host was reinstalled.",
      hint: "Ask the user to verify the new key with the host's administrator; if it is " +
        `legitimate, remove the old entry with \`ssh-keygen -R ${shellQuote(names[0] ?? "")} -f ${
          where[0] ? shellQuote(where[0].file) : "~/.ssh/known_hosts"
        }\` and retry the same call.`,
      fault: "environment",
    });
    verify(false);
  };
}

/** Connects one hop. `sock` is the forwarded channel when going through a bastion. */
function connectOne(
  host: ResolvedHost,
  options: ConnectOptions,
  sock: ConnectConfig["sock"] | undefined,
  deadline: number,
): Promise<SshClient> {
  return (async () => {
    const plan = await planAuth(host, options);
    const known = await readKnownHosts(host.knownHostsFiles);
    const names = hostKeyNames(host);
    const refusal: HostKeyRefusal = {};
    const tried: string[] = [];

    const preferred = knownKeyTypes(known, names).flatMap((t) => HOST_KEY_ALGOS_FOR_TYPE[t] ?? [t]);
    const { Client } = await loadSsh2();
    const client = new Client();
    const config: ConnectConfig = {
      host: host.hostName,
      port: host.port,
      username: host.user,
      readyTimeout: Math.max(1, deadline - Date.now()),
      keepaliveInterval: 15_000,
      keepaliveCountMax: 3,
      hostVerifier: hostKeyVerifier(host, options, known, names, refusal),
      authHandler: (_left, _partial, next) => {
        const method = plan.methods[tried.length];
        if (!method) return next(false);
        tried.push(plan.labels[tried.length]!);
        next(method);
      },
    };
    config.algorithms = {};
    if (preferred.length > 0) {
      // Prefer the key types already recorded, so a host with several keys is not mistaken
      // for a changed one (OpenSSH does the same).
      config.algorithms.serverHostKey = { prepend: preferred };
    }
    // `Compression yes` is not applied: ssh2's zlib transport fails under Deno's node:zlib.
    if (sock) config.sock = sock;

    return await new Promise<SshClient>((resolve, reject) => {
      let settled = false;
      // Closing the pool must not wait out a host that accepts and never speaks.
      const abort = () => {
        client.destroy();
        fail(closedWhileConnecting(host));
      };
      const fail = (error: AnchorError) => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener("abort", abort);
        client.end();
        reject(error);
      };
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener("abort", abort, { once: true });
      client.on("ready", () => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener("abort", abort);
        resolve(client);
      });
      client.on("error", (e: Error & { level?: string; code?: string }) => {
        if (refusal.error) return fail(refusal.error);
        fail(connectError(host, e, plan, tried, options));
      });
      client.on(
        "close",
        () => fail(connectError(host, new Error("connection closed"), plan, tried, options)),
      );
      try {
        client.connect(config);
        // Without this every SFTP round trip waits ~40 ms for Nagle + delayed ACK.
        if (!sock) client.setNoDelay(true);
      } catch (e) {
        fail(connectError(host, e as Error, plan, tried, options));
      }
    });
  })();
}

function closedWhileConnecting(host: ResolvedHost): AnchorError {
  return new AnchorError({
    code: "SSH_CLOSED",
    message: `The connection to ${describeHost(host)} was given up while it was being opened ` +
      "(anchorfs is shutting down).",
    fault: "environment",
  });
}

// Exported for tests.
export function connectError(
  host: ResolvedHost,
  e: Error & { level?: string; code?: string },
  plan: AuthPlan,
  tried: string[],
  options: ConnectOptions,
): AnchorError {
  const who = describeHost(host);
  const triedText = tried.length > 0 ? tried.join(", ") : "none";
  if (e.level === "client-authentication" || /authentication methods failed/i.test(e.message)) {
    const parts = [
      `Authentication as ${JSON.stringify(host.user)} on ${who} failed; tried: ${triedText}.`,
    ];
    if (plan.unreadable.length > 0) {
      parts.push(`Unreadable IdentityFile: ${plan.unreadable.join(", ")}.`);
    }
    let hint = `Check that one of these public keys is in ~${host.user}/.ssh/authorized_keys on ` +
      `${host.hostName}, or set the right "User"/"IdentityFile" for Host ${host.alias} in ` +
      "~/.ssh/config; `ssh -v " + host.alias + "` shows what OpenSSH offers.";
    if (tried.length === 0 && plan.encrypted.length === 0) {
      // Nothing was offered: "check that one of these keys" would name no key at all.
      parts[0] = `Authentication as ${JSON.stringify(host.user)} on ${who} failed: there was ` +
        "no key to offer (no ssh-agent, no readable default key in ~/.ssh, no usable IdentityFile).";
      hint =
        `Make a key available to anchorfs: create one (ssh-keygen -t ed25519) and install it ` +
        `on the host (ssh-copy-id ${host.alias}), or set "IdentityFile" for Host ${host.alias} in ` +
        "~/.ssh/config, or start anchorfs with SSH_AUTH_SOCK pointing at an agent that holds it.";
    }
    if (plan.encrypted.length > 0) {
      parts.push(`Passphrase-protected key(s) not used: ${plan.encrypted.join(", ")}.`);
      hint = `anchorfs cannot ask for a passphrase: load the key into an agent (ssh-add ${
        plan.encrypted[0]
      }) with SSH_AUTH_SOCK set for anchorfs, then retry.`;
    }
    return new AnchorError({
      code: "SSH_AUTH_FAILED",
      message: parts.join(" "),
      hint,
      fault: "environment",
    });
  }
  if (e.level === "client-timeout" || /timed out/i.test(e.message)) {
    return new AnchorError({
      code: "SSH_TIMEOUT",
      message: `Connecting to ${who} timed out after ${
        Math.round(options.timeoutMs / 100) / 10
      } s.`,
      hint: "Check that the host is up and reachable (`ssh " + host.alias +
        "` in a terminal), or raise --ssh-timeout; then retry the same call.",
      fault: "environment",
    });
  }
  const code = e.code ?? "";
  const reason = code === "ECONNREFUSED"
    ? `the connection was refused (nothing listens on port ${host.port})`
    : code === "ENOTFOUND" || code === "EAI_AGAIN"
    ? `the host name ${JSON.stringify(host.hostName)} does not resolve`
    : e.message;
  return new AnchorError({
    code: "SSH_CONNECT_FAILED",
    message: `Cannot connect to ${who}: ${reason}.`,
    hint: `Check the host and port (HostName/Port for Host ${host.alias} in ~/.ssh/config; ` +
      "`ssh " + host.alias + "` in a terminal must work), then retry the same call.",
    fault: "environment",
    cause: e,
  });
}

/** Opens the connection, through the jump host when the config names one. */
export async function openConnection(
  host: ResolvedHost,
  options: ConnectOptions,
): Promise<OpenedConnection> {
  const deadline = Date.now() + options.timeoutMs;
  if (!host.jump) return { client: await connectOne(host, options, undefined, deadline) };
  const jump = await connectOne(host.jump, options, undefined, deadline);
  try {
    const sock = await new Promise<ConnectConfig["sock"]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("timed out opening the forwarded channel")),
        Math.max(1, deadline - Date.now()),
      );
      jump.forwardOut("127.0.0.1", 0, host.hostName, host.port, (err, stream) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(stream);
      });
    }).catch((e: Error) => {
      throw new AnchorError({
        code: "SSH_CONNECT_FAILED",
        message: `The jump host ${
          describeHost(host.jump!)
        } could not open a connection to ${host.hostName}:${host.port}: ${e.message}.`,
        hint: `Check HostName/Port of Host ${host.alias} as seen from the bastion ` +
          "(`ssh " + host.alias + "` in a terminal must work), then retry the same call.",
        fault: "environment",
      });
    });
    const client = await connectOne(host, options, sock, deadline);
    client.on("close", () => jump.end());
    return { client, jump };
  } catch (e) {
    jump.end();
    throw e;
  }
}
