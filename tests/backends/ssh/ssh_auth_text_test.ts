// The text of an ssh authentication failure, without a server: with no key to offer it says so
// and how to make one available, instead of "tried: none … check that one of these keys".

import { assertNotIncludes, assertStringIncludes } from "../../_assert.ts";
import { connectError } from "../../../lib/backends/ssh/ssh_connect.ts";

const host = {
  alias: "box",
  hostName: "10.0.0.5",
  user: "deploy",
  port: 22,
  identityFiles: [],
  identitiesOnly: false,
  agent: { kind: "none" },
  knownHostsFiles: [],
} as unknown as Parameters<typeof connectError>[0];
const options = { timeoutMs: 1000, homeDir: "/home/u", env: () => undefined };
const failure = Object.assign(new Error("All configured authentication methods failed"), {
  level: "client-authentication",
});

Deno.test("ssh auth failure with no key to offer says there was none and how to add one", () => {
  const plan = { methods: [], labels: [], encrypted: [], unreadable: [] };
  const e = connectError(host, failure, plan, [], options);
  assertStringIncludes(e.message, "there was no key to offer");
  assertNotIncludes(e.message, "tried: none");
  assertStringIncludes(e.hint!, "ssh-keygen -t ed25519");
  assertStringIncludes(e.hint!, "ssh-copy-id box");
  assertNotIncludes(e.hint!, "one of these public keys");
});

Deno.test("ssh auth failure after offering keys still names them", () => {
  const plan = { methods: [], labels: [], encrypted: [], unreadable: [] };
  const e = connectError(host, failure, plan, ["key ~/.ssh/id_ed25519"], options);
  assertStringIncludes(e.message, "tried: key ~/.ssh/id_ed25519");
  assertStringIncludes(e.hint!, "one of these public keys");
});
