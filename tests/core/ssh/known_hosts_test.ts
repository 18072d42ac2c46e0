// known_hosts.ts (pure): host lookups with ports and hashed |1| entries, known and changed keys;
// keys made with the real ssh-keygen.

import { createHmac } from "node:crypto";
import {
  checkHostKey,
  fingerprintSha256,
  formatKnownHostLine,
  knownHostName,
  knownKeyTypes,
  parseKnownHosts,
  toBase64,
} from "../../../lib/core/ssh/known_hosts.ts";
import { assert, assertEquals, assertMatch } from "../../_assert.ts";

function blob(type: string, body: number[]): Uint8Array {
  const name = new TextEncoder().encode(type);
  const out = new Uint8Array(4 + name.length + body.length);
  new DataView(out.buffer).setUint32(0, name.length);
  out.set(name, 4);
  out.set(body, 4 + name.length);
  return out;
}

const KEY_A = blob("ssh-ed25519", [1, 2, 3]);
const KEY_B = blob("ssh-ed25519", [9, 9, 9]);
const KEY_RSA = blob("ssh-rsa", [7]);

function hashedName(name: string, salt: Uint8Array): string {
  const hash = createHmac("sha1", salt).update(name).digest();
  return `|1|${toBase64(salt)}|${toBase64(new Uint8Array(hash))}`;
}

Deno.test("non-default ports are looked up as [host]:port", () => {
  assertEquals(knownHostName("box", 22), "box");
  assertEquals(knownHostName("10.0.0.1", 2222), "[10.0.0.1]:2222");
});

Deno.test("a plain entry with the same key is known; another key of that type is changed", () => {
  const entries = parseKnownHosts(
    `# comment\nother ${"ssh-ed25519"} ${toBase64(KEY_B)}\nbox,10.0.0.1 ssh-ed25519 ${
      toBase64(KEY_A)
    }\n`,
    "/kh",
  );
  assertEquals(checkHostKey(entries, ["box"], KEY_A).kind, "known");
  const changed = checkHostKey(entries, ["10.0.0.1"], KEY_B);
  assertEquals(changed.kind, "changed");
  if (changed.kind === "changed") assertEquals(changed.entries.map((e) => e.line), [3]);
  assertEquals(checkHostKey(entries, ["unknown"], KEY_A).kind, "new");
});

Deno.test("[host]:port entries do not match the same host on port 22", () => {
  const entries = parseKnownHosts(`[box]:2222 ssh-ed25519 ${toBase64(KEY_A)}\n`, "/kh");
  assertEquals(checkHostKey(entries, ["[box]:2222"], KEY_A).kind, "known");
  assertEquals(checkHostKey(entries, ["box"], KEY_A).kind, "new");
});

Deno.test("hashed |1| entries match by HMAC-SHA1 of the name", () => {
  const salt = new Uint8Array(20).map((_, i) => i * 7);
  const entries = parseKnownHosts(
    `${hashedName("[127.0.0.1]:2200", salt)} ssh-ed25519 ${toBase64(KEY_A)}\n`,
    "/kh",
  );
  assertEquals(checkHostKey(entries, ["[127.0.0.1]:2200"], KEY_A).kind, "known");
  assertEquals(checkHostKey(entries, ["[127.0.0.1]:2200"], KEY_B).kind, "changed");
  assertEquals(checkHostKey(entries, ["[127.0.0.1]:2201"], KEY_B).kind, "new");
});

Deno.test("hashed entries written by ssh-keygen -H are matched", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/known_hosts`;
    await Deno.writeTextFile(file, `[box.example]:2222 ssh-ed25519 ${toBase64(KEY_A)}\n`);
    const out = await new Deno.Command("ssh-keygen", {
      args: ["-H", "-f", file],
      stdout: "null",
      stderr: "null",
    }).output();
    assert(out.success, "ssh-keygen -H failed");
    const text = await Deno.readTextFile(file);
    assertMatch(text, /^\|1\|/);
    const entries = parseKnownHosts(text, file);
    assertEquals(checkHostKey(entries, ["[box.example]:2222"], KEY_A).kind, "known");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wildcard and negated patterns apply to plain entries", () => {
  const entries = parseKnownHosts(`*.lan,!evil.lan ssh-ed25519 ${toBase64(KEY_A)}\n`, "/kh");
  assertEquals(checkHostKey(entries, ["pi.lan"], KEY_A).kind, "known");
  assertEquals(checkHostKey(entries, ["evil.lan"], KEY_A).kind, "new");
});

Deno.test("only keys of another type recorded: fail closed as changed", () => {
  const entries = parseKnownHosts(`box ssh-rsa ${toBase64(KEY_RSA)}\n`, "/kh");
  assertEquals(checkHostKey(entries, ["box"], KEY_A).kind, "changed");
  assertEquals(knownKeyTypes(entries, ["box"]), ["ssh-rsa"]);
});

Deno.test("@revoked keys are refused and @cert-authority lines are not host keys", () => {
  const entries = parseKnownHosts(
    `@revoked * ssh-ed25519 ${toBase64(KEY_B)}\n@cert-authority box ssh-ed25519 ${
      toBase64(KEY_A)
    }\n`,
    "/kh",
  );
  assertEquals(checkHostKey(entries, ["box"], KEY_B).kind, "revoked");
  assertEquals(checkHostKey(entries, ["box"], KEY_A).kind, "new");
});

Deno.test("fingerprints use OpenSSH's SHA256: form (unpadded base64)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await new Deno.Command("ssh-keygen", {
      args: ["-q", "-t", "ed25519", "-N", "", "-f", `${dir}/k`],
    }).output();
    const pub = (await Deno.readTextFile(`${dir}/k.pub`)).trim();
    const out = await new Deno.Command("ssh-keygen", {
      args: ["-l", "-E", "sha256", "-f", `${dir}/k.pub`],
      stdout: "piped",
    }).output();
    const expected = new TextDecoder().decode(out.stdout).split(" ")[1];
    const keyBlob = Uint8Array.from(atob(pub.split(" ")[1]!), (c) => c.charCodeAt(0));
    assertEquals(fingerprintSha256(keyBlob), expected);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the recorded line round-trips through the parser", () => {
  const line = formatKnownHostLine("[h]:2", KEY_A);
  const entries = parseKnownHosts(line, "/kh");
  assertEquals(entries[0]?.keyType, "ssh-ed25519");
  assertEquals(checkHostKey(entries, ["[h]:2"], KEY_A).kind, "known");
});
