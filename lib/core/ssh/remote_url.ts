// Parsing of `ssh://[user@]host[:port]/abs/path` and `sftp://…` locations. Pure; the SSH backend
// resolves the host through ~/.ssh/config, this only splits the text.

import { AnchorError } from "../errors.ts";

/** An SSH host as an `ssh://` path names it. */
export interface RemoteTarget {
  /** The host as written (an ssh config alias or a host name). */
  host: string;
  /** The user from `user@host`, when given. */
  user?: string;
  /** The port from `host:port`, when given. */
  port?: number;
}

interface RemoteLocation {
  scheme: "ssh" | "sftp";
  target: RemoteTarget;
  /** Absolute POSIX path on the remote host; "~" and "~/x" are kept for the backend to expand. */
  path: string;
}

/**
 * Whether `raw` is meant as a remote path. Any `ssh:`/`sftp:` prefix counts, so that a slip like
 * "ssh:/box/x" or "ssh:box/x" gets the "write it as ssh://host/path" error from parseRemoteUrl
 * instead of "no file at /cwd/ssh:/box/x".
 */
export function isRemoteUrl(raw: string): boolean {
  return /^(ssh|sftp):/i.test(raw.trim());
}

/** Formats the target the way a user would type it: `user@host:port`. */
export function formatTarget(t: RemoteTarget): string {
  const host = t.host.includes(":") ? `[${t.host}]` : t.host;
  return `${t.user ? `${t.user}@` : ""}${host}${t.port ? `:${t.port}` : ""}`;
}

export function formatRemoteUrl(t: RemoteTarget, path: string): string {
  return `ssh://${formatTarget(t)}${path.startsWith("/") ? "" : "/"}${path}`;
}

export function parseRemoteUrl(raw: string): RemoteLocation {
  const text = raw.trim();
  const m = /^(ssh|sftp):\/\/(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::([^/]*))?(\/.*)?$/i.exec(text);
  const fail = (why: string) =>
    new AnchorError({
      code: "INVALID_REMOTE_PATH",
      message: `${JSON.stringify(raw)} is not a remote path: ${why}`,
      hint:
        'Write it as "ssh://[user@]host[:port]/absolute/path", e.g. "ssh://box/srv/app/main.py" ' +
        'or "ssh://deploy@box:2222/home/deploy". "host" may be an alias from ~/.ssh/config.',
    });
  if (!m) throw fail("the host is missing or malformed.");
  const [, scheme, user, hostRaw, portRaw, pathRaw] = m;
  const host = hostRaw!.startsWith("[") ? hostRaw!.slice(1, -1) : hostRaw!;
  if (host === "") throw fail("the host is empty.");
  let port: number | undefined;
  if (portRaw !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portRaw) || Number(portRaw) < 1 || Number(portRaw) > 65535) {
      throw fail(`port ${JSON.stringify(portRaw)} is not a number from 1 to 65535.`);
    }
    port = Number(portRaw);
  }
  let path = pathRaw ?? "/";
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep the path as written: a literal "%" in a file name is more likely than URL escaping.
  }
  // "ssh://box/~/x" means the remote home, as scp users write it.
  if (path === "/~" || path.startsWith("/~/")) path = path.slice(1);
  const target: RemoteTarget = { host };
  if (user) target.user = decodeURIComponent(user);
  if (port !== undefined) target.port = port;
  return { scheme: scheme!.toLowerCase() as "ssh" | "sftp", target, path };
}
