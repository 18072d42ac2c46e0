// lib/test_timing.ts (pure): the test-only timing variables a test run sets are read as positive
// milliseconds and anything else is ignored, so a stray value can never make a kill skip its grace.
// The heartbeat's wiring through the real server is proven in tests/mcp/shell_test.ts.

import { assertEquals } from "../_assert.ts";
import { TEST_TIMING_VARS, testTiming } from "../../lib/test_timing.ts";

const from = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("testTiming reads ANCHORFS_TEST_KILL_GRACE_MS and ANCHORFS_TEST_HEARTBEAT_MS as ms", () => {
  assertEquals(TEST_TIMING_VARS, {
    killGraceMs: "ANCHORFS_TEST_KILL_GRACE_MS",
    heartbeatMs: "ANCHORFS_TEST_HEARTBEAT_MS",
  });
  assertEquals(testTiming(from({})), {});
  assertEquals(
    testTiming(from({ ANCHORFS_TEST_KILL_GRACE_MS: "500", ANCHORFS_TEST_HEARTBEAT_MS: " 200 " })),
    { killGraceMs: 500, heartbeatMs: 200 },
  );
});

Deno.test("testTiming ignores values that are not positive integers of milliseconds", () => {
  for (const bad of ["", "0", "-5", "1.5", "2s", "abc", "1e3"]) {
    assertEquals(testTiming(from({ ANCHORFS_TEST_KILL_GRACE_MS: bad })), {}, bad);
  }
});
