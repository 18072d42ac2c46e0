// lib/core/ssh: SSH as text: ssh:// locations, ~/.ssh/config resolution, known_hosts parsing and
// the accept-new decision. Pure; the SSH backend does the I/O.
// This file is the folder's public surface: what code outside lib/core/ssh/ uses.

export {
  checkHostKey,
  fingerprintSha256,
  formatKnownHostLine,
  keyTypeOfBlob,
  type KnownHostEntry,
  knownHostName,
  knownKeyTypes,
  parseKnownHosts,
} from "./known_hosts.ts";
export {
  formatRemoteUrl,
  formatTarget,
  isRemoteUrl,
  parseRemoteUrl,
  type RemoteTarget,
} from "./remote_url.ts";
export {
  defaultIdentityFiles,
  matchPattern,
  type ResolvedHost,
  resolveSshHost,
} from "./ssh_config.ts";
