// Locations and the Host a place is on: plain paths are on the local host, ssh:// ones on the
// host the opener hands out (its files, jobs and shell), and a job record's directory finds its
// host the same way (Locations.hostAt, what the job manager uses for other servers' jobs).

import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { MemoryHost } from "../../lib/backends/memory/memory_host.ts";
import { Locations } from "../../lib/ops/location.ts";
import type { Host } from "../../lib/ops/ports/host.ts";
import type { RemoteTarget } from "../../lib/core/ssh/remote_url.ts";
import { assertEquals, assertRejects } from "../_assert.ts";

function world() {
  const local = new MemoryHost({ "/work/a.txt": "a" }, "pwsh");
  const opened: RemoteTarget[] = [];
  const box: Host = new MemoryHost({ "/srv/b.txt": "b" }, "bash");
  const locations = new Locations(local, {
    open: (target) => {
      opened.push(target);
      return Promise.resolve(box);
    },
  });
  return { local, box, opened, locations };
}

Deno.test("a plain path is on the local host, an ssh:// path on the host the opener gives", async () => {
  const { local, box, locations } = world();
  const cwd = locations.localAt("/work");
  const here = await locations.resolve("a.txt", cwd);
  assertEquals([here.host, here.backend, here.host.shell], [local, local.files, "pwsh"]);
  const there = await locations.resolve("ssh://box/srv/b.txt", cwd);
  assertEquals([there.host, there.backend, there.host.shell], [box, box.files, "bash"]);
  // A neighbour of a remote location stays on its host.
  assertEquals(locations.sibling(there, "/srv/c.txt").host, box);
});

Deno.test("hostAt finds the host of a record's directory: local for a path, the opener's for ssh://", async () => {
  const { local, box, opened, locations } = world();
  assertEquals(await locations.hostAt("/work"), local);
  assertEquals(await locations.hostAt("ssh://me@box:2222/srv"), box);
  assertEquals(opened, [{ user: "me", host: "box", port: 2222 }]);
});

Deno.test("hostAt without an opener says this process cannot open ssh connections", async () => {
  const locations = new Locations(new MemoryBackend({}));
  const e = await assertRejects(() => locations.hostAt("ssh://box/srv"));
  assertEquals((e as Error).message, "this process cannot open ssh connections");
});
