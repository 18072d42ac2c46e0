// The connection flags and the cap's sizing from the open-file limit (connection_options.ts), and
// the limit as read through FFI (fd_limit.ts).

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import {
  connectionCap,
  connectionsLine,
  parseConnectionFlags,
} from "../../../lib/mcp/http/connection_options.ts";
import { raiseFdLimit } from "../../../lib/backends/local/fd_limit.ts";

Deno.test("connectionCap keeps half the open-file limit (less 32) for everything else", () => {
  for (
    const [asked, soft, cap] of [
      [512, 1024, 480],
      [512, 256, 96],
      [512, 128, 32],
      [512, 20, 8],
      [512, 4096, 512],
      [100, 1024, 100],
      [512, Infinity, 512],
    ] as const
  ) assertEquals(connectionCap(asked, soft), cap, `asked ${asked}, limit ${soft}`);
});

Deno.test("the connection flags: defaults, and a bad value names its flag", () => {
  assertEquals(parseConnectionFlags({}), {
    headerTimeoutMs: 10_000,
    bodyTimeoutMs: 30_000,
    maxConnections: 512,
  });
  assertEquals(parseConnectionFlags({ "header-timeout": "0.5" }).headerTimeoutMs, 500);
  for (
    const [values, flag] of [
      [{ "header-timeout": "0" }, "--header-timeout"],
      [{ "body-timeout": "soon" }, "--body-timeout"],
      [{ "max-connections": "1.5" }, "--max-connections"],
      [{ "max-connections": "0" }, "--max-connections"],
    ] as const
  ) {
    const e = assertThrows(() => parseConnectionFlags(values)) as Error;
    assertStringIncludes(e.message, flag);
  }
});

Deno.test("the start-up line says the cap, the limit behind it, and the timeouts", () => {
  const limits = { headerTimeoutMs: 2000, bodyTimeoutMs: 30_000, maxConnections: 96 };
  assertEquals(
    connectionsLine(limits, 512, { soft: 256 }),
    "connections: at most 96 at once (open-file limit 256; the rest is kept for the file tools " +
      "and jobs); headers within 2 s, bodies within 30 s.",
  );
  assertStringIncludes(
    connectionsLine(limits, 96, { soft: 4096, raisedFrom: 1024 }),
    "open-file limit 4096, raised from 1024",
  );
});

Deno.test("raiseFdLimit reads this process's open-file limit and never lowers it", () => {
  const before = raiseFdLimit(0);
  const raised = raiseFdLimit(before.soft + 1);
  if (!Number.isFinite(before.soft)) {
    assert(before.note, "an unknown limit says why");
    return;
  }
  assert(raised.soft >= before.soft && raised.soft <= raised.hard, JSON.stringify(raised));
});
