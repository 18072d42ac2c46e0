// Minimal assertions (JSR's @std/assert is unreachable here): thin wrappers over node:assert
// with the @std/assert names, so tests read the same as in the Deno ecosystem.

import nodeAssert from "node:assert/strict";

export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message);
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new nodeAssert.AssertionError({
      message: message ??
        `Expected text to include ${JSON.stringify(expected)}.\nActual text:\n${actual}`,
      actual,
      expected,
      operator: "includes",
    });
  }
}

export function assertNotIncludes(actual: string, unexpected: string, message?: string): void {
  if (actual.includes(unexpected)) {
    throw new nodeAssert.AssertionError({
      message: message ??
        `Expected text not to include ${JSON.stringify(unexpected)}.\nActual text:\n${actual}`,
      actual,
      expected: unexpected,
      operator: "not includes",
    });
  }
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  nodeAssert.match(actual, pattern, message);
}

export function assertThrows(fn: () => unknown, check?: (e: unknown) => void): unknown {
  try {
    fn();
  } catch (e) {
    check?.(e);
    return e;
  }
  throw new nodeAssert.AssertionError({ message: "Expected the function to throw." });
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  check?: (e: unknown) => void,
): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    check?.(e);
    return e;
  }
  throw new nodeAssert.AssertionError({ message: "Expected the promise to reject." });
}
