// Connection behaviour against real sshd processes on 127.0.0.1: config aliases, agent auth,
// a ProxyJump bastion, refusals, host-key accept-new and changed-key refusal, reconnects, and
// the error texts for a wrong key, a locked key and an unreachable port.

import { AnchorError } from "../../../lib/core/errors.ts";
import { tempDir } from "../../_harness.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../../_assert.ts";
import { createSshWorld, generateKey, startAgent, startSshd } from "./_sshd.ts";
import { needing } from "../../_requires.ts";

const sshTest = needing("sshd");

const dec = new TextDecoder();

function anchorError(e: unknown): AnchorError {
  assert(e instanceof AnchorError, `expected an AnchorError, got ${e}`);
  return e;
}

Deno.test(
  sshTest(
    "an alias resolves HostName, User, Port and IdentityFile from ~/.ssh/config",
    async () => {
      await using world = await createSshWorld({ keyName: "work_key" });
      await world.writeConfig(
        `Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n  User ${world.user}\n` +
          `  IdentityFile ~/.ssh/work_key\n`,
      );
      await using dir = await tempDir();
      await Deno.writeTextFile(`${dir.path}/hello.txt`, "hi\n");
      const pool = world.pool();
      try {
        const b = await pool.openSftp({ host: "box" });
        assertEquals(b.link.host.port, world.sshd.port);
        assertEquals(b.link.host.identityFiles, [`${world.home}/.ssh/work_key`]);
        assertEquals(dec.decode(await b.readFile(`${dir.path}/hello.txt`)), "hi\n");
        // The same target reuses the pooled connection.
        assert((await pool.openSftp({ host: "box" })) === b);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(sshTest("the agent authenticates when no key file is usable", async () => {
  await using world = await createSshWorld({ keyName: "agent_only" });
  // Move the key out of ~/.ssh so only the agent has it.
  await using keys = await tempDir();
  await Deno.rename(world.keyPath, `${keys.path}/k`);
  await Deno.rename(`${world.keyPath}.pub`, `${keys.path}/k.pub`);
  await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`);
  await using agent = await startAgent(keys.path);
  await agent.add(`${keys.path}/k`);
  const withAgent = world.pool({ authSock: agent.sock });
  const without = world.pool();
  try {
    const b = await withAgent.openSftp({ host: "box" });
    assert((await b.homeDir()).startsWith("/"));
    const e = anchorError(await assertRejects(() => without.openSftp({ host: "box" })));
    assertEquals(e.code, "SSH_AUTH_FAILED");
  } finally {
    await withAgent.close();
    await without.close();
  }
}));

Deno.test(sshTest("IdentityAgent in the config names the agent socket", async () => {
  await using world = await createSshWorld({ keyName: "agent_cfg" });
  await using keys = await tempDir();
  await Deno.rename(world.keyPath, `${keys.path}/k`);
  await using agent = await startAgent(keys.path);
  await agent.add(`${keys.path}/k`);
  await world.writeConfig(
    `Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n  IdentityAgent ${agent.sock}\n`,
  );
  const pool = world.pool();
  try {
    await pool.openSftp({ host: "box" });
  } finally {
    await pool.close();
  }
}));

Deno.test(sshTest(
  "a passphrase-protected key without an agent fails saying to load it into an agent",
  async () => {
    await using world = await createSshWorld({ keyName: "unused" });
    const locked = `${world.home}/.ssh/id_ecdsa`;
    const pub = await generateKey(locked, "ecdsa", "secret phrase");
    await Deno.writeTextFile(`${world.sshd.dir}/authorized_keys`, pub + "\n");
    await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`);
    const pool = world.pool();
    try {
      const e = anchorError(await assertRejects(() => pool.openSftp({ host: "box" })));
      assertEquals(e.code, "SSH_AUTH_FAILED");
      assertStringIncludes(e.message, "~/.ssh/id_ecdsa");
      assertStringIncludes(e.hint ?? "", "load the key into an agent (ssh-add ~/.ssh/id_ecdsa)");
    } finally {
      await pool.close();
    }
  },
));

Deno.test(sshTest("a wrong key fails naming the host, user, port and keys tried", async () => {
  await using world = await createSshWorld({ keyName: "wrong" });
  await Deno.writeTextFile(`${world.sshd.dir}/authorized_keys`, "\n");
  await world.writeConfig(
    `Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n  User ${world.user}\n  IdentityFile ~/.ssh/wrong\n`,
  );
  const pool = world.pool();
  try {
    const e = anchorError(await assertRejects(() => pool.openSftp({ host: "box" })));
    assertEquals(e.code, "SSH_AUTH_FAILED");
    assertStringIncludes(e.message, `"${world.user}"`);
    assertStringIncludes(e.message, `127.0.0.1:${world.sshd.port}`);
    assertStringIncludes(e.message, "key ~/.ssh/wrong (ssh-ed25519)");
    assertStringIncludes(e.hint ?? "", "authorized_keys");
  } finally {
    await pool.close();
  }
}));

Deno.test(
  sshTest("an unreachable port fails with the connection refused and the next step", async () => {
    await using world = await createSshWorld();
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = (l.addr as Deno.NetAddr).port;
    l.close();
    await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${closedPort}\n`);
    const pool = world.pool();
    try {
      const e = anchorError(await assertRejects(() => pool.openSftp({ host: "box" })));
      assertEquals(e.code, "SSH_CONNECT_FAILED");
      assertStringIncludes(e.message, `nothing listens on port ${closedPort}`);
      assertStringIncludes(e.message, '"box"');
      assertStringIncludes(e.hint ?? "", "HostName/Port");
    } finally {
      await pool.close();
    }
  }),
);

Deno.test(
  sshTest(
    "an unknown host key is recorded (accept-new); a changed key is then refused",
    async () => {
      await using world = await createSshWorld();
      await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`);
      const known = `${world.home}/.ssh/known_hosts`;
      const first = world.pool();
      try {
        await first.openSftp({ host: "box" });
      } finally {
        await first.close();
      }
      const recorded = await Deno.readTextFile(known);
      assertEquals(recorded.trim(), `[127.0.0.1]:${world.sshd.port} ${world.sshd.hostKeyLine}`);

      // The same address now answers with another host key.
      const port = world.sshd.port;
      await world.sshd.stop();
      await using impostor = await startSshd({ authorizedKeys: [world.publicKey], port });
      const second = world.pool();
      try {
        const e = anchorError(await assertRejects(() => second.openSftp({ host: "box" })));
        assertEquals(e.code, "SSH_HOST_KEY_CHANGED");
        assertStringIncludes(e.message, '"box"');
        assertStringIncludes(e.message, `${known}:1`);
        assertMatch(e.message, /SHA256:[A-Za-z0-9+/]{43}/);
        // Both words quoted for a POSIX shell: [ ] would glob, and the file path may hold spaces.
        assertStringIncludes(e.hint ?? "", `ssh-keygen -R '[127.0.0.1]:${port}' -f ${known}`);
      } finally {
        await second.close();
      }
      assertEquals(await Deno.readTextFile(known), recorded, "known_hosts was not changed");
      assert(impostor.port === port);
    },
  ),
);

Deno.test(sshTest("a ProxyJump bastion (a second sshd) reaches the target", async () => {
  await using world = await createSshWorld();
  await using bastion = await startSshd({ authorizedKeys: [world.publicKey] });
  await world.writeConfig(
    `Host target\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n  ProxyJump jump\n` +
      `Host jump\n  HostName 127.0.0.1\n  Port ${bastion.port}\n`,
  );
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/via.txt`, "through the bastion\n");
  const pool = world.pool();
  try {
    const b = await pool.openSftp({ host: "target" });
    assertEquals(b.link.host.jump?.port, bastion.port);
    assertEquals(dec.decode(await b.readFile(`${dir.path}/via.txt`)), "through the bastion\n");
    assertStringIncludes(b.id, `via ${world.user}@127.0.0.1:${bastion.port}`);
    // Both hosts were recorded under their own names.
    const known = await Deno.readTextFile(`${world.home}/.ssh/known_hosts`);
    assertStringIncludes(known, `[127.0.0.1]:${bastion.port} `);
    assertStringIncludes(known, `[127.0.0.1]:${world.sshd.port} `);
  } finally {
    await pool.close();
  }
}));

Deno.test(
  sshTest("two-hop ProxyJump chains and ProxyCommand are refused before connecting", async () => {
    await using world = await createSshWorld();
    await world.writeConfig(
      `Host chain\n  ProxyJump a,b\nHost nested\n  ProxyJump mid\nHost mid\n  ProxyJump outer\n` +
        `Host cmd\n  ProxyCommand nc %h %p\n`,
    );
    const pool = world.pool();
    try {
      for (const host of ["chain", "nested", "cmd"]) {
        const e = anchorError(await assertRejects(() => pool.openSftp({ host })));
        assertEquals(e.code, "SSH_CONFIG_UNSUPPORTED", host);
        assertStringIncludes(e.hint ?? "", "ProxyJump with exactly one hop");
      }
    } finally {
      await pool.close();
    }
  }),
);

Deno.test(
  sshTest("a connection killed mid-session is re-established and reads are retried", async () => {
    await using world = await createSshWorld();
    await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`);
    await using dir = await tempDir();
    const big = new Uint8Array(4 * 1024 * 1024).map((_, i) => i % 253);
    await Deno.writeFile(`${dir.path}/big.bin`, big);
    await Deno.writeTextFile(`${dir.path}/small.txt`, "small\n");
    const pool = world.pool();
    try {
      const b = await pool.openSftp({ host: "box" });
      assertEquals(dec.decode(await b.readFile(`${dir.path}/small.txt`)), "small\n");
      // Kill the sshd process serving us while a large read is in flight.
      const reading = b.readFile(`${dir.path}/big.bin`);
      assert((await world.sshd.killSessions()) > 0, "no sshd session process to kill");
      assertEquals((await reading).length, big.length);
      assertEquals(dec.decode(await b.readFile(`${dir.path}/small.txt`)), "small\n");
      assert(b.stats.reconnects >= 1, `expected a reconnect, got ${JSON.stringify(b.stats)}`);

      // A drop noticed only when the next request is sent: also transparent.
      b.link.destroySocket();
      assertEquals((await b.stat(`${dir.path}/small.txt`))?.size, 6);
      const files = (await b.listTree(dir.path, undefined)).map((e) => e.path).sort();
      assertEquals(files, ["big.bin", "small.txt"]);

      // A write after a drop goes through on the new connection and stays atomic.
      await world.sshd.killSessions();
      await b.writeFileAtomic(`${dir.path}/small.txt`, new TextEncoder().encode("rewritten\n"));
      assertEquals(await Deno.readTextFile(`${dir.path}/small.txt`), "rewritten\n");
    } finally {
      await pool.close();
    }
  }),
);

Deno.test(sshTest("Include files under ~/.ssh are read from disk, with globs", async () => {
  await using world = await createSshWorld();
  await Deno.mkdir(`${world.home}/.ssh/conf.d`);
  await Deno.writeTextFile(
    `${world.home}/.ssh/conf.d/10-box.conf`,
    `Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`,
  );
  await Deno.writeTextFile(`${world.home}/.ssh/conf.d/20-other.conf`, "Host box\n  Port 1\n");
  await world.writeConfig("Include conf.d/*.conf\n");
  const pool = world.pool();
  try {
    const b = await pool.openSftp({ host: "box" });
    assertEquals(b.link.host.port, world.sshd.port, "the first file in glob order wins");
  } finally {
    await pool.close();
  }
}));

Deno.test(sshTest(
  "a host that accepts TCP but never speaks SSH times out with the timeout named",
  async () => {
    await using world = await createSshWorld();
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepted: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of silent) accepted.push(conn);
    })();
    await world.writeConfig(
      `Host mute\n  HostName 127.0.0.1\n  Port ${(silent.addr as Deno.NetAddr).port}\n`,
    );
    const pool = world.pool({ timeoutSeconds: 0.5 });
    try {
      const e = anchorError(await assertRejects(() => pool.openSftp({ host: "mute" })));
      assertEquals(e.code, "SSH_TIMEOUT");
      assertStringIncludes(e.message, "timed out after 0.5 s");
      assertStringIncludes(e.hint ?? "", "--ssh-timeout");
    } finally {
      await pool.close();
      silent.close();
      for (const c of accepted) c.close();
      await accepting.catch(() => {});
    }
  },
));

Deno.test(
  sshTest(
    "a drop during the final rename repeats it only when it provably did not run",
    async () => {
      await using world = await createSshWorld();
      await world.writeConfig(`Host box\n  HostName 127.0.0.1\n  Port ${world.sshd.port}\n`);
      await using dir = await tempDir();
      const path = `${dir.path}/f.txt`;
      await Deno.writeTextFile(path, "old\n");
      const enc = new TextEncoder();
      const pool = world.pool();
      try {
        const b = await pool.openSftp({ host: "box" });
        // deno-lint-ignore no-explicit-any
        const patchRename = async (wrap: (original: any, self: any) => any) => {
          // deno-lint-ignore no-explicit-any
          const sftp: any = await b.link.withSftp("test", "safe", (s) => Promise.resolve(s));
          const original = sftp.ext_openssh_rename;
          sftp.ext_openssh_rename = wrap(original, sftp);
        };

        // 1. The connection dies before the rename is sent: the temp file is still there, so the
        //    rename is repeated on the new connection and the write succeeds.
        await patchRename(() => (_from: string, _to: string, cb: (e: Error) => void) => {
          b.link.destroySocket();
          cb(new Error("No response from server"));
        });
        await b.writeFileAtomic(path, enc.encode("first\n"));
        assertEquals(await Deno.readTextFile(path), "first\n");

        // 2. The rename runs but its answer is lost with the connection: not repeated, reported.
        await patchRename(
          (original, self) => (from: string, to: string, cb: (e: Error) => void) => {
            original.call(self, from, to, () => {
              b.link.destroySocket();
              cb(new Error("No response from server"));
            });
          },
        );
        const e = anchorError(
          await assertRejects(() => b.writeFileAtomic(path, enc.encode("second\n"))),
        );
        assertEquals(e.code, "SSH_CONNECTION_LOST");
        assertStringIncludes(e.hint ?? "", "view the file");
        assertEquals(await Deno.readTextFile(path), "second\n", "the rename had been applied");
        assert(b.stats.reconnects >= 2);

        // 3. Deletes are never repeated after a drop.
        // deno-lint-ignore no-explicit-any
        const sftp: any = await b.link.withSftp("test", "safe", (s) => Promise.resolve(s));
        sftp.unlink = (_p: string, cb: (e: Error) => void) => {
          b.link.destroySocket();
          cb(new Error("No response from server"));
        };
        const del = anchorError(await assertRejects(() => b.removeFile(path)));
        assertEquals(del.code, "SSH_CONNECTION_LOST");
        assertEquals(await Deno.readTextFile(path), "second\n");
        const leftovers = [...Deno.readDirSync(dir.path)].map((x) => x.name);
        assertEquals(leftovers, ["f.txt"]);
      } finally {
        await pool.close();
      }
    },
  ),
);

Deno.test(sshTest(
  "a host's channel limit: commands go over an extra connection, none is dropped, and the bulk helper comes back once a channel is free",
  async () => {
    const world = await createSshWorld({
      config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
      maxSessions: 3,
    });
    await using _world = world;
    const pool = world.pool();
    try {
      const b = await pool.openSftp({ host: "box" });
      await b.stat("/"); // the SFTP channel: one of the three
      // Two long commands (they wait for stdin) take the rest of the first connection.
      const waiting = [
        await b.link.openExec("wait", "read _line; echo done-1"),
        await b.link.openExec("wait", "read _line; echo done-2"),
      ];
      assertEquals(await world.sshd.sessionCount(), 1);
      // Refused there: run on an extra connection; the first one (and its channels) live on.
      const r = await b.link.exec("echo", "echo over-the-limit", "");
      assertEquals(dec.decode(r.stdout), "over-the-limit\n");
      assertEquals(await world.sshd.sessionCount(), 2);
      assertEquals(b.link.reconnects, 0);
      // The bulk helper cannot start with every channel taken: null (SFTP instead) this time.
      assertEquals(await b.link.withHelper("probe", () => Promise.resolve("helper")), null);
      const closed = new Promise<void>((resolve) =>
        waiting[0]!.channel.on("close", () => resolve())
      );
      // Read its output (a channel closes once its output is consumed).
      waiting[0]!.channel.on("data", () => {});
      waiting[0]!.channel.end("go\n");
      await closed;
      // sshd frees the slot just after the close reaches us: asked again, the helper starts.
      let helper: string | null = null;
      for (let i = 0; i < 50 && helper === null; i++) {
        helper = await b.link.withHelper("probe", () => Promise.resolve("helper"));
        if (helper === null) await new Promise((r) => setTimeout(r, 100));
      }
      assertEquals(helper, "helper");
      // The waiting command was never disturbed.
      const out: string[] = [];
      waiting[1]!.channel.on("data", (d: Uint8Array) => out.push(dec.decode(d)));
      const second = new Promise<void>((resolve) =>
        waiting[1]!.channel.on("close", () => resolve())
      );
      waiting[1]!.channel.end("go\n");
      await second;
      assertEquals(out.join(""), "done-2\n");
      assertEquals(b.link.reconnects, 0);
    } finally {
      await pool.close();
    }
  },
));
