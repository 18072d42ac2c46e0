// Test-only timing overrides, read from the environment by the composition root (lib/compose.ts):
// the job tests set them so a kill does not wait out the real 2 s TERM → KILL grace and a waiting
// call beats faster than every 2 s. Not a user setting (docs/development.md says so): named
// ANCHORFS_TEST_*, and anything but a positive integer of milliseconds is ignored.

/** The timing defaults a test run may shorten. */
interface TestTiming {
  /** Grace between TERM and KILL when a job is killed (default 2000 ms). */
  killGraceMs?: number;
  /** How often a waiting call (shell window, jobs wait) reports progress (default 2000 ms). */
  heartbeatMs?: number;
}

// Exported for tests.
/** The variables, by field: ANCHORFS_TEST_KILL_GRACE_MS and ANCHORFS_TEST_HEARTBEAT_MS. */
export const TEST_TIMING_VARS = {
  killGraceMs: "ANCHORFS_TEST_KILL_GRACE_MS",
  heartbeatMs: "ANCHORFS_TEST_HEARTBEAT_MS",
} as const;

/** The overrides `env` sets (a field is left out where its variable is unset or not valid). */
export function testTiming(env: (name: string) => string | undefined): TestTiming {
  const out: TestTiming = {};
  for (const [field, name] of Object.entries(TEST_TIMING_VARS) as [keyof TestTiming, string][]) {
    const text = env(name)?.trim() ?? "";
    if (/^\d+$/.test(text) && Number(text) > 0) out[field] = Number(text);
  }
  return out;
}
