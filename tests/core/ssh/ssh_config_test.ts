// ssh_config.ts (pure): Host blocks resolved as OpenSSH does — aliases, first value wins,
// patterns and negation, the URL's user and port over the config.

import { AnchorError } from "../../../lib/core/errors.ts";
import {
  hostLineMatches,
  parseConfigText,
  parseJumpSpec,
  type ResolveInput,
  resolveSshHost,
} from "../../../lib/core/ssh/ssh_config.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  assertThrows,
} from "../../_assert.ts";

const HOME = "/home/me";

function resolve(
  config: string,
  host: string,
  extra: Partial<ResolveInput> = {},
) {
  return resolveSshHost({
    host,
    localUser: "me",
    homeDir: HOME,
    configText: config,
    configPath: `${HOME}/.ssh/config`,
    env: (name) =>
      ({ SSH_AUTH_SOCK: "/tmp/agent.sock", XDIR: "/x" } as Record<string, string>)[name],
    ...extra,
  });
}

Deno.test("a host without config resolves to itself, the local user and port 22", () => {
  const h = resolve("", "example.org");
  assertEquals([h.hostName, h.user, h.port], ["example.org", "me", 22]);
  assertEquals(h.identityFiles, []);
  assertEquals(h.agent, { kind: "env" });
  assertEquals(h.knownHostsFiles[0], `${HOME}/.ssh/known_hosts`);
});

Deno.test("an alias takes HostName, User, Port and IdentityFile from its Host block", () => {
  const h = resolve(
    `# comment
Host box
  HostName 10.1.2.3
  User deploy
  Port 2222
  IdentityFile ~/.ssh/box_key
  IdentityFile "/keys/%h-%r-%u-%p"
`,
    "box",
  );
  assertEquals([h.hostName, h.user, h.port], ["10.1.2.3", "deploy", 2222]);
  assertEquals(h.identityFiles, [`${HOME}/.ssh/box_key`, "/keys/10.1.2.3-deploy-me-2222"]);
});

Deno.test("the first value wins across blocks, and the URL's user and port override the config", () => {
  const config = `Host box
  User first
Host *
  User second
  Port 2200
`;
  assertEquals(resolve(config, "box").user, "first");
  assertEquals(resolve(config, "other").user, "second");
  const h = resolve(config, "box", { user: "url", port: 7 });
  assertEquals([h.user, h.port], ["url", 7]);
});

Deno.test("Host patterns support wildcards, several patterns and negation", () => {
  assert(hostLineMatches(["*.example.org"], "a.example.org"));
  assert(hostLineMatches(["web?"], "web1"));
  assert(!hostLineMatches(["web?"], "web12"));
  assert(hostLineMatches(["a", "b"], "b"));
  assert(!hostLineMatches(["*", "!bastion"], "bastion"));
  assert(hostLineMatches(["*", "!bastion"], "box"));
  assert(!hostLineMatches(["!bastion"], "box"), "only negated patterns never match");
  assert(hostLineMatches(["BOX"], "box"), "case-insensitive");
});

Deno.test("key=value and quoted arguments are read like OpenSSH", () => {
  const lines = parseConfigText('HostName=1.2.3.4\nIdentityFile "/a b/key"\n', "f");
  assertEquals(lines.map((l) => [l.keyword, l.args]), [["hostname", ["1.2.3.4"]], [
    "identityfile",
    ["/a b/key"],
  ]]);
});

Deno.test("HostName may use %h, and %d expands to the local home", () => {
  const h = resolve("Host *.lan\n  HostName %h.example.org\n  IdentityFile %d/k_%n\n", "pi.lan");
  assertEquals(h.hostName, "pi.lan.example.org");
  assertEquals(h.identityFiles, [`${HOME}/k_pi.lan`]);
});

Deno.test("an unknown token is an error naming the line", () => {
  const e = assertThrows(() => resolve("Host x\n  IdentityFile ~/%Z\n", "x")) as AnchorError;
  assertEquals(e.code, "SSH_CONFIG_UNSUPPORTED");
  assertStringIncludes(e.message, "config:2");
});

Deno.test("Port must be numeric", () => {
  const e = assertThrows(() => resolve("Host x\n  Port ssh\n", "x")) as AnchorError;
  assertEquals(e.code, "SSH_CONFIG_INVALID");
  assertStringIncludes(e.message, '"ssh"');
});

Deno.test("IdentityAgent accepts a socket path, SSH_AUTH_SOCK, $VAR and none", () => {
  assertEquals(resolve("Host x\n  IdentityAgent ~/agent.sock\n", "x").agent, {
    kind: "socket",
    path: `${HOME}/agent.sock`,
  });
  assertEquals(resolve("Host x\n  IdentityAgent SSH_AUTH_SOCK\n", "x").agent, { kind: "env" });
  assertEquals(resolve("Host x\n  IdentityAgent $XDIR\n", "x").agent, {
    kind: "socket",
    path: "/x",
  });
  assertEquals(resolve("Host x\n  IdentityAgent none\n", "x").agent, { kind: "none" });
});

Deno.test("Include reads files relative to ~/.ssh, and an included Host block applies", () => {
  const seen: string[] = [];
  const h = resolve("Include conf.d/*\nHost box\n  User late\n", "box", {
    readInclude: (pattern) => {
      seen.push(pattern);
      return [{ path: `${HOME}/.ssh/conf.d/a`, text: "Host box\n  User included\n  Port 2022\n" }];
    },
  });
  assertEquals(seen, [`${HOME}/.ssh/conf.d/*`]);
  assertEquals([h.user, h.port], ["included", 2022]);
});

Deno.test("an Include inside a non-matching Host block is not read", () => {
  let reads = 0;
  resolve("Host other\n  Include extra\n", "box", {
    readInclude: () => {
      reads++;
      return [];
    },
  });
  assertEquals(reads, 0);
});

Deno.test("Match blocks other than 'Match all' are skipped and noted", () => {
  const h = resolve("Match host box exec true\n  User matched\nMatch all\n  Port 2000\n", "box");
  assertEquals(h.user, "me");
  assertEquals(h.port, 2000);
  assertMatch(h.notes.join("\n"), /Match host box exec true" block skipped/);
});

Deno.test("ProxyJump with one hop resolves the jump host through the config too", () => {
  const h = resolve(
    `Host box
  HostName 10.0.0.5
  ProxyJump ops@bastion:2200
Host bastion
  HostName bastion.example.org
  User ignored
  IdentityFile ~/.ssh/bastion_key
`,
    "box",
  );
  assertEquals(h.hostName, "10.0.0.5");
  assert(h.jump);
  assertEquals([h.jump.hostName, h.jump.user, h.jump.port], ["bastion.example.org", "ops", 2200]);
  assertEquals(h.jump.identityFiles, [`${HOME}/.ssh/bastion_key`]);
  assertEquals(h.jump.jump, undefined);
});

Deno.test("ProxyJump none and ProxyCommand none mean a direct connection", () => {
  const h = resolve(
    "Host box\n  ProxyJump none\n  ProxyCommand none\nHost *\n  ProxyJump b\n",
    "box",
  );
  assertEquals(h.jump, undefined);
});

Deno.test("a multi-hop ProxyJump list is refused, saying what is supported", () => {
  const e = assertThrows(() => resolve("Host box\n  ProxyJump a,b\n", "box")) as AnchorError;
  assertEquals(e.code, "SSH_CONFIG_UNSUPPORTED");
  assertStringIncludes(e.message, "multi-hop");
  assertStringIncludes(e.message, "config:2");
  assertStringIncludes(e.hint ?? "", "exactly one hop");
});

Deno.test("a jump host that itself jumps is refused as a two-hop chain", () => {
  const e = assertThrows(() =>
    resolve("Host box\n  ProxyJump mid\nHost mid\n  ProxyJump outer\n", "box")
  ) as AnchorError;
  assertEquals(e.code, "SSH_CONFIG_UNSUPPORTED");
  assertStringIncludes(e.message, "two hops");
  assertStringIncludes(e.message, '"mid"');
});

Deno.test("ProxyCommand is refused with the supported alternative", () => {
  const e = assertThrows(() =>
    resolve("Host box\n  ProxyCommand ssh -W %h:%p bastion\n", "box")
  ) as AnchorError;
  assertEquals(e.code, "SSH_CONFIG_UNSUPPORTED");
  assertStringIncludes(e.message, "ProxyCommand");
  assertStringIncludes(e.hint ?? "", "ProxyJump");
});

Deno.test("jump specs parse user, host and port, with or without ssh://", () => {
  assertEquals(parseJumpSpec("a@b:22"), { host: "b", user: "a", port: 22 });
  assertEquals(parseJumpSpec("ssh://b"), { host: "b" });
  assertEquals(parseJumpSpec("[::1]:2200"), { host: "::1", port: 2200 });
  assertEquals(parseJumpSpec("a b"), null);
});

Deno.test("IdentitiesOnly, UserKnownHostsFile and ConnectTimeout are read", () => {
  const h = resolve(
    "Host x\n  IdentitiesOnly yes\n  UserKnownHostsFile ~/kh\n  ConnectTimeout 5\n",
    "x",
  );
  assert(h.identitiesOnly);
  assertEquals(h.knownHostsFiles, [`${HOME}/kh`]);
  assertEquals(h.connectTimeoutSeconds, 5);
});
