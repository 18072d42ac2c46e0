// The shapes batch_edit operations arrive in, read once for the tool and `anchorfs edit --batch`:
// a list, one operation without its list, the whole arguments object, any of them as JSON text;
// Octofs's field names and content as a list of lines. Checking each operation is
// parseEditOps's (lib/core/edit_ops.ts) job, which names the operation and the fix.

import { AnchorError } from "../../core/errors.ts";
import { joinLines } from "../../core/tool_args.ts";

interface BatchOperations {
  /** The operations, for parseEditOps (not checked here beyond their shape). */
  operations: unknown;
  /** Set when the whole arguments object came with "allow_repeat": true. */
  allowRepeat: boolean;
}

/**
 * Reads operations as given: a list, one operation object (`{"op": ...}`), or the arguments
 * object (`{"operations": [...], "allow_repeat": true}`), or any of those as JSON text.
 * `source` names where they came from in the error for text that is not JSON (e.g.
 * `operations (a string)`, `--batch "ops.json"`).
 */
export function readBatchOperations(given: unknown, source: string): BatchOperations {
  let value = given;
  if (typeof given === "string") {
    try {
      value = JSON.parse(given);
    } catch (e) {
      throw new AnchorError({
        code: "INVALID_OPERATION",
        message: `${source} is not a JSON list of operations: ${(e as Error).message}`,
        // The operations are JSON in both interfaces (the tool's argument, the CLI's --batch
        // input): the examples are that JSON, so `source` says where it goes.
        hint: `${source} must be JSON: a list, e.g. ` +
          '[{"op":"insert","anchor":-1,"content":"new line"}], or one operation, e.g. ' +
          '{"op":"replace","start":"3:5e","content":"new line"}.',
      });
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const object = value as { op?: unknown; operation?: unknown; operations?: unknown };
    // One operation without its list, or the whole arguments object: both are unambiguous.
    if (typeof object.op === "string" || typeof object.operation === "string") {
      return { operations: normalizeOperations([object]), allowRepeat: false };
    }
    if (Array.isArray(object.operations)) {
      return {
        operations: normalizeOperations(object.operations),
        allowRepeat: (value as { allow_repeat?: unknown }).allow_repeat === true,
      };
    }
  }
  return {
    operations: Array.isArray(value) ? normalizeOperations(value) : value,
    allowRepeat: false,
  };
}

/**
 * Octofs's names inside operations ("operation" for "op") and content sent as a list of lines,
 * rewritten to ours; anything else is left for parseEditOps to judge (an insert's "start" is
 * read as its anchor there).
 */
export function normalizeOperations(items: unknown[]): unknown[] {
  return items.map((item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const op: Record<string, unknown> = { ...item as Record<string, unknown> };
    if (op.op === undefined && op.operation !== undefined) op.op = op.operation;
    delete op.operation;
    if (op.content !== undefined) op.content = joinLines(op.content);
    return op;
  });
}
