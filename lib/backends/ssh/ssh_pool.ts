// The RemoteOpener for ssh:// and sftp:// locations: resolves the host through ~/.ssh/config
// (reading it and its Includes from disk), then hands out one SshHost (SFTP files and exec jobs
// on one connection) per resolved target, shared by every session of the process.
// closeServices closes the pool. The ~/.ssh/config reader and the connection side (ssh_host.ts,
// ssh_link.ts, SFTP, remote jobs, ssh2) load on the first resolve: a server that never reaches an
// ssh:// path never holds them (issue 26).

import { userInfo } from "node:os";
import { formatRemoteUrl, formatTarget, type RemoteTarget } from "../../core/ssh/remote_url.ts";
import type { ResolvedHost } from "../../core/ssh/ssh_config.ts";
import type { RemoteOpener } from "../../ops/ports/remote_opener.ts";
import type { SftpBackend } from "./sftp_files.ts";
import type { SshHost } from "./ssh_host.ts";
import { onFirstUse } from "../../core/first_use.ts";

/**
 * The modules behind a connection, imported on the first open (issue 26); a load that fails (no
 * descriptor free) is that open's error, and the next open loads again.
 */
const loadConnectionModules = onFirstUse(
  "ssh connection",
  () =>
    Promise.all([
      import("./ssh_host.ts").then(({ SshHost }) => SshHost),
      import("./ssh_link.ts").then(({ SshLink }) => SshLink),
    ]),
);
/** The ~/.ssh/config reader, imported on the first resolve. */
const loadSshConfig = onFirstUse(
  "ssh config",
  () =>
    import("../../core/ssh/ssh_config.ts").then(({ matchPattern, resolveSshHost }) => ({
      matchPattern,
      resolveSshHost,
    })),
);

interface SshPoolOptions {
  /** Connection timeout (`--ssh-timeout`), unless the host's ConnectTimeout is shorter. */
  timeoutSeconds?: number;
  /** The local home holding .ssh/ (default $HOME). */
  homeDir?: string;
  env?: (name: string) => string | undefined;
  onNewHostKey?: (file: string, line: string) => void;
}

function localUser(env: (name: string) => string | undefined): string {
  const fromEnv = env("USER") ?? env("LOGNAME");
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username;
  } catch {
    return "root";
  }
}

/** Expands an absolute Include pattern whose segments may hold `*`/`?` wildcards. */
function expandIncludePattern(
  pattern: string,
  matchPattern: (pattern: string, name: string) => boolean,
): { path: string; text: string }[] {
  const segments = pattern.split("/").filter((s) => s !== "");
  let candidates = [""];
  for (const [i, seg] of segments.entries()) {
    const last = i === segments.length - 1;
    const next: string[] = [];
    for (const base of candidates) {
      if (!/[*?[]/.test(seg)) {
        next.push(`${base}/${seg}`);
        continue;
      }
      let names: string[] = [];
      try {
        names = [...Deno.readDirSync(base || "/")].filter((e) =>
          last ? e.isFile || e.isSymlink : e.isDirectory
        ).map((e) => e.name);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (!name.startsWith(".") && matchPattern(seg, name)) next.push(`${base}/${name}`);
      }
    }
    candidates = next;
  }
  const out: { path: string; text: string }[] = [];
  for (const path of candidates) {
    try {
      out.push({ path, text: Deno.readTextFileSync(path) });
    } catch {
      // OpenSSH ignores Include patterns that match nothing.
    }
  }
  return out;
}

export class SshPool implements RemoteOpener {
  private hosts = new Map<string, Promise<SshHost>>();
  private env: (name: string) => string | undefined;
  private closed = false;

  constructor(private options: SshPoolOptions = {}) {
    this.env = options.env ?? ((name) => Deno.env.get(name));
  }

  private homeDir(): string {
    return this.options.homeDir ?? this.env("HOME") ?? userInfo().homedir;
  }

  /** Resolves a target like `ssh host` would, without connecting. */
  async resolve(target: RemoteTarget): Promise<ResolvedHost> {
    const { matchPattern, resolveSshHost } = await loadSshConfig();
    const home = this.homeDir();
    const configPath = `${home}/.ssh/config`;
    let configText = "";
    try {
      configText = Deno.readTextFileSync(configPath);
    } catch {
      // No config: plain host names work like `ssh host` without one.
    }
    const input: Parameters<typeof resolveSshHost>[0] = {
      host: target.host,
      localUser: localUser(this.env),
      homeDir: home,
      configText,
      configPath,
      readInclude: (pattern) => expandIncludePattern(pattern, matchPattern),
      env: this.env,
    };
    if (target.user !== undefined) input.user = target.user;
    if (target.port !== undefined) input.port = target.port;
    return resolveSshHost(input);
  }

  /** The files of `target` (its host's SFTP backend), connecting on first use. */
  async openSftp(target: RemoteTarget): Promise<SftpBackend> {
    return (await this.open(target)).files;
  }

  async open(target: RemoteTarget): Promise<SshHost> {
    const host = await this.resolve(target);
    const key = `${formatTarget(target)}\u0000${host.user}@${host.hostName}:${host.port}` +
      (host.jump ? `>${host.jump.user}@${host.jump.hostName}:${host.jump.port}` : "");
    let pooled = this.hosts.get(key);
    if (!pooled) {
      const timeoutSeconds = Math.min(
        this.options.timeoutSeconds ?? 30,
        host.connectTimeoutSeconds ?? Infinity,
      );
      const options = {
        timeoutMs: timeoutSeconds * 1000,
        homeDir: this.homeDir(),
        env: this.env,
        ...(this.options.onNewHostKey ? { onNewHostKey: this.options.onNewHostKey } : {}),
      };
      // Set before the first await: concurrent opens of one target share the one host.
      const loading = loadConnectionModules().then(([Host, Link]) =>
        new Host(new Link(host, options), (path) => formatRemoteUrl(target, path))
      );
      this.hosts.set(key, loading);
      // A host whose modules did not load is not kept: the next open tries again.
      loading.catch(() => {
        if (this.hosts.get(key) === loading) this.hosts.delete(key);
      });
      pooled = loading;
    }
    const opened = await pooled;
    // Connect now so a wrong host or key fails at resolve time with its own message.
    await opened.files.homeDir();
    return opened;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.hosts.values()];
    this.hosts.clear();
    await Promise.all(all.map(async (h) => (await h).files.close().catch(() => {})));
  }
}
