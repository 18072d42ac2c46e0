// known_hosts parsing and the accept-new decision: plain, `[host]:port` and hashed `|1|`
// entries, SHA256 fingerprints in OpenSSH's form. Pure (hashing only; the SSH backend reads
// and appends the files).

import { createHash, createHmac } from "node:crypto";

export interface KnownHostEntry {
  file: string;
  line: number;
  marker?: "@revoked" | "@cert-authority";
  /** Comma-separated patterns (plain entries), e.g. ["box", "[box]:2222", "!x*"]. */
  patterns?: string[];
  /** Hashed entry `|1|salt|hash` (base64 parts). */
  hashed?: { salt: Uint8Array; hash: Uint8Array };
  keyType: string;
  /** Base64 of the public key blob. */
  keyBase64: string;
}

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Exported for tests.
export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Parses a known_hosts file; unreadable lines are skipped like OpenSSH does. */
export function parseKnownHosts(text: string, file: string): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i]!.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const parts = trimmed.split(/\s+/);
    let marker: KnownHostEntry["marker"];
    if (parts[0] === "@revoked" || parts[0] === "@cert-authority") {
      marker = parts.shift() as KnownHostEntry["marker"];
    }
    const [hosts, keyType, keyBase64] = parts;
    if (!hosts || !keyType || !keyBase64) continue;
    const entry: KnownHostEntry = { file, line: i + 1, keyType, keyBase64 };
    if (marker) entry.marker = marker;
    if (hosts.startsWith("|1|")) {
      const [, , salt, hash] = hosts.split("|");
      try {
        entry.hashed = { salt: fromBase64(salt ?? ""), hash: fromBase64(hash ?? "") };
      } catch {
        continue;
      }
    } else {
      entry.patterns = hosts.split(",");
    }
    out.push(entry);
  }
  return out;
}

/** The name a host is recorded under: `host` on port 22, `[host]:port` otherwise. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    "^" + pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") +
      "$",
    "i",
  );
  return re.test(text);
}

function entryMatches(entry: KnownHostEntry, name: string): boolean {
  if (entry.hashed) {
    const digest = createHmac("sha1", entry.hashed.salt).update(name).digest();
    return digest.length === entry.hashed.hash.length &&
      digest.every((b, i) => b === entry.hashed!.hash[i]);
  }
  let matched = false;
  for (const p of entry.patterns ?? []) {
    if (p.startsWith("!")) {
      if (globMatch(p.slice(1), name)) return false;
    } else if (globMatch(p, name)) {
      matched = true;
    }
  }
  return matched;
}

/** OpenSSH's fingerprint form: `SHA256:` + unpadded base64 of the key blob's SHA-256. */
export function fingerprintSha256(keyBlob: Uint8Array): string {
  return "SHA256:" + createHash("sha256").update(keyBlob).digest("base64").replace(/=+$/, "");
}

/** The key type named inside an SSH public key blob (its first string). */
export function keyTypeOfBlob(blob: Uint8Array): string {
  if (blob.length < 4) return "unknown";
  const len = (blob[0]! << 24 | blob[1]! << 16 | blob[2]! << 8 | blob[3]!) >>> 0;
  return new TextDecoder().decode(blob.subarray(4, 4 + Math.min(len, 64)));
}

type HostKeyDecision =
  | { kind: "known"; entry: KnownHostEntry }
  /** Nothing recorded for this host: accept-new records it. */
  | { kind: "new" }
  /** Recorded with another key: fail closed. `entries` are the lines that disagree. */
  | { kind: "changed"; entries: KnownHostEntry[] }
  | { kind: "revoked"; entry: KnownHostEntry };

/**
 * The accept-new decision for `keyBlob` presented by the host known as `names` (the
 * `knownHostName` forms to look up, e.g. host name and alias). A key recorded for the host
 * under the same type but other bytes, or only keys of other types, is "changed".
 */
export function checkHostKey(
  entries: readonly KnownHostEntry[],
  names: readonly string[],
  keyBlob: Uint8Array,
): HostKeyDecision {
  const keyBase64 = toBase64(keyBlob);
  const keyType = keyTypeOfBlob(keyBlob);
  const forHost = entries.filter((e) =>
    e.marker !== "@cert-authority" && names.some((n) => entryMatches(e, n))
  );
  const revoked = entries.find((e) => e.marker === "@revoked" && e.keyBase64 === keyBase64);
  if (revoked) return { kind: "revoked", entry: revoked };
  const match = forHost.find((e) => !e.marker && e.keyBase64 === keyBase64);
  if (match) return { kind: "known", entry: match };
  const others = forHost.filter((e) => !e.marker);
  if (others.length === 0) return { kind: "new" };
  const sameType = others.filter((e) => e.keyType === keyType);
  return { kind: "changed", entries: sameType.length > 0 ? sameType : others };
}

/** Key types recorded for the host, for preferring them in key exchange. */
export function knownKeyTypes(
  entries: readonly KnownHostEntry[],
  names: readonly string[],
): string[] {
  const types: string[] = [];
  for (const e of entries) {
    if (!e.marker && names.some((n) => entryMatches(e, n)) && !types.includes(e.keyType)) {
      types.push(e.keyType);
    }
  }
  return types;
}

/** The line accept-new appends (plain host name, like `ssh -o HashKnownHosts=no`). */
export function formatKnownHostLine(name: string, keyBlob: Uint8Array): string {
  return `${name} ${keyTypeOfBlob(keyBlob)} ${toBase64(keyBlob)}`;
}
