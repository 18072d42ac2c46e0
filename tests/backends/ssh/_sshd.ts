// Test harness for SSH: a private `sshd` on a free 127.0.0.1 port with throwaway host and user
// keys, plus a temporary HOME holding .ssh/config and known_hosts. Fails (never skips) when
// sshd is missing. Release with `await using`.

import { SshPool } from "../../../lib/backends/ssh/ssh_pool.ts";

const SSHD = "/usr/sbin/sshd";

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${dec.decode(out.stderr)}`);
  }
  return dec.decode(out.stdout);
}

export async function generateKey(
  path: string,
  type = "ed25519",
  passphrase = "",
): Promise<string> {
  const args = ["-q", "-t", type, "-N", passphrase, "-C", `anchorfs-test-${type}`, "-f", path];
  if (type === "rsa") args.splice(2, 0, "-b", "2048");
  await run("ssh-keygen", args);
  return (await Deno.readTextFile(`${path}.pub`)).trim();
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

export interface Sshd extends AsyncDisposable {
  port: number;
  dir: string;
  /** "ssh-ed25519 AAAA…" of the server's host key. */
  hostKeyLine: string;
  /** Kills the processes serving current connections (the listener keeps running). */
  killSessions(): Promise<number>;
  /** How many connections this sshd is serving (its live child processes). */
  sessionCount(): Promise<number>;
  stop(): Promise<void>;
}

export interface SshdOptions {
  /** Public key lines allowed to log in. */
  authorizedKeys: string[];
  /** Reuse a host key file (to simulate the same host) or generate a fresh one. */
  hostKeyPath?: string;
  /** Pinned port (e.g. to restart "the same host" with a new key). */
  port?: number;
  /** Extra sshd_config lines (e.g. "ForceCommand internal-sftp"). */
  extraConfig?: string[];
  /**
   * Channels one connection may open (sshd's MaxSessions; default 50 here, where OpenSSH's own
   * default is 10).
   */
  maxSessions?: number;
}

export async function startSshd(options: SshdOptions): Promise<Sshd> {
  try {
    await Deno.stat(SSHD);
  } catch {
    throw new Error(
      `${SSHD} is missing: the SSH tests need a real sshd. Install openssh-server ` +
        "(apt-get install -y openssh-server) — .ci/run does this.",
    );
  }
  await Deno.mkdir("/run/sshd", { recursive: true }).catch(() => {});
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-sshd-" }));
  const hostKey = options.hostKeyPath ?? `${dir}/host_ed25519`;
  if (!options.hostKeyPath) await generateKey(hostKey);
  await Deno.writeTextFile(`${dir}/authorized_keys`, options.authorizedKeys.join("\n") + "\n");
  const port = options.port ?? freePort();
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${hostKey}`,
    `PidFile ${dir}/sshd.pid`,
    "UsePAM no",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    "StrictModes no",
    "PermitRootLogin yes",
    "AllowTcpForwarding yes",
    "MaxStartups 50",
    `MaxSessions ${options.maxSessions ?? 50}`,
    "LogLevel ERROR",
    "Subsystem sftp internal-sftp",
    ...(options.extraConfig ?? []),
  ].join("\n");
  await Deno.writeTextFile(`${dir}/sshd_config`, config + "\n");
  const child = new Deno.Command(SSHD, {
    args: ["-D", "-e", "-f", `${dir}/sshd_config`],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const logDone = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stderr) log += dec.decode(chunk);
  })();
  // Wait until it accepts connections.
  const started = Date.now();
  while (true) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      break;
    } catch {
      if (Date.now() - started > 10_000) {
        child.kill("SIGKILL");
        await child.status;
        await logDone;
        throw new Error(`sshd did not start on port ${port}: ${log}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  const hostKeyLine = (await Deno.readTextFile(`${hostKey}.pub`)).trim().split(/\s+/).slice(0, 2)
    .join(" ");
  const sessionPids = async () => {
    const out = await new Deno.Command("pgrep", {
      args: ["-P", String(child.pid)],
      stdout: "piped",
    })
      .output();
    const pids = new TextDecoder().decode(out.stdout).split(/\s+/).filter((s) => s !== "");
    // Killed children can linger as zombies here (PID 1 does not reap): they are gone.
    const live: number[] = [];
    for (const pid of pids.map(Number)) {
      try {
        const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
        if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") live.push(pid);
      } catch { /* exited */ }
    }
    return live;
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await logDone;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return {
    port,
    dir,
    hostKeyLine,
    async sessionCount() {
      return (await sessionPids()).length;
    },
    async killSessions() {
      const list = await sessionPids();
      for (const pid of list) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* already gone */ }
      }
      return list.length;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** A temporary HOME with .ssh/ (config, a user key) and an sshd that accepts that key. */
export interface SshWorld extends AsyncDisposable {
  home: string;
  sshd: Sshd;
  /** Path of the user's private key (in $HOME/.ssh/). */
  keyPath: string;
  publicKey: string;
  user: string;
  writeConfig(text: string): Promise<void>;
  /** An SshPool reading this HOME, with SSH_AUTH_SOCK set only when given. */
  pool(options?: { authSock?: string; timeoutSeconds?: number }): SshPool;
  /** Environment for a spawned anchorfs server using this HOME. */
  env(extra?: Record<string, string>): Record<string, string>;
}

export function currentUser(): string {
  return Deno.env.get("USER") ?? Deno.env.get("LOGNAME") ??
    new TextDecoder().decode(
      new Deno.Command("id", { args: ["-un"], stdout: "piped" }).outputSync().stdout,
    )
      .trim();
}

export async function createSshWorld(
  options: {
    keyName?: string;
    keyType?: string;
    config?: (port: number) => string;
    /** Extra sshd_config lines (e.g. "SetEnv NAME=value" for every session on the host). */
    sshdConfig?: string[];
    /** sshd's MaxSessions (channels per connection). */
    maxSessions?: number;
  } = {},
): Promise<SshWorld> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchorfs-home-" }));
  await Deno.mkdir(`${home}/.ssh`, { mode: 0o700 });
  const keyPath = `${home}/.ssh/${options.keyName ?? "id_ed25519"}`;
  const publicKey = await generateKey(keyPath, options.keyType ?? "ed25519");
  const sshd = await startSshd({
    authorizedKeys: [publicKey],
    ...(options.sshdConfig && { extraConfig: options.sshdConfig }),
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
  });
  const user = currentUser();
  const world: SshWorld = {
    home,
    sshd,
    keyPath,
    publicKey,
    user,
    async writeConfig(text) {
      await Deno.writeTextFile(`${home}/.ssh/config`, text);
    },
    pool(poolOptions = {}) {
      const env: Record<string, string> = { HOME: home, USER: user };
      if (poolOptions.authSock) env.SSH_AUTH_SOCK = poolOptions.authSock;
      return new SshPool({
        homeDir: home,
        env: (name) => env[name],
        timeoutSeconds: poolOptions.timeoutSeconds ?? 10,
      });
    },
    env(extra = {}) {
      // Deno finds its cache under $HOME unless DENO_DIR says where: keep the real one.
      const denoDir = Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
      return { HOME: home, USER: user, DENO_DIR: denoDir, ...extra };
    },
    async [Symbol.asyncDispose]() {
      await sshd.stop();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
  if (options.config) await world.writeConfig(options.config(sshd.port));
  return world;
}

/** Starts `ssh-agent` on a private socket; `add(key)` loads a key. */
export async function startAgent(dir: string): Promise<
  { sock: string; add(keyPath: string): Promise<void> } & AsyncDisposable
> {
  const sock = `${dir}/agent.sock`;
  const child = new Deno.Command("ssh-agent", {
    args: ["-D", "-a", sock],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const started = Date.now();
  while (true) {
    try {
      await Deno.stat(sock);
      break;
    } catch {
      if (Date.now() - started > 5000) throw new Error("ssh-agent did not start");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return {
    sock,
    async add(keyPath) {
      const out = await new Deno.Command("ssh-add", {
        args: [keyPath],
        env: { SSH_AUTH_SOCK: sock },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success) throw new Error(`ssh-add failed: ${new TextDecoder().decode(out.stderr)}`);
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
