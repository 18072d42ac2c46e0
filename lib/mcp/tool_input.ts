// A tool's input schema with the argument handling of lib/core/tool_args.ts built in: aliases are
// mapped and "true"/"false" strings read as booleans before zod validates, ignored arguments are
// remembered for the result's note line, and the JSON Schema keeps `type` a single string.

import * as z from "zod";
import {
  type ArgSpec,
  booleanFromString,
  normalizeToolArgs,
  singleTypeSchema,
} from "../core/tool_args.ts";

const NOTES = new WeakMap<object, string[]>();

/** The input schema of a tool: `shape` plus the argument handling described above. */
export function toolInput<S extends z.ZodRawShape>(
  shape: S,
  spec: Omit<ArgSpec, "known"> = {},
): z.ZodObject<S> {
  const schema = z.object(shape);
  const known = Object.keys(shape);
  const booleans = known.filter((k) => {
    const field = shape[k] as z.ZodType;
    return !field.safeParse("true").success && field.safeParse(true).success;
  });
  const std = schema["~standard"];
  const patched: typeof std = {
    ...std,
    validate: async (value: unknown) => {
      const { args, notes } = normalizeToolArgs(value, { ...spec, known });
      for (const k of booleans) args[k] = booleanFromString(args[k]);
      const result = await std.validate(args);
      if (!result.issues && result.value !== null && typeof result.value === "object") {
        NOTES.set(result.value as object, notes);
      }
      return result;
    },
    ...(std.jsonSchema && {
      jsonSchema: {
        input: (options) => compact(std.jsonSchema!.input(options)),
        output: (options) => compact(std.jsonSchema!.output(options)),
      },
    }),
  };
  Object.defineProperty(schema, "~standard", { value: patched, configurable: true });
  return schema;
}

/** Single types only, and no `$schema` line: it rides on every tools/list for nothing. */
function compact(schema: Record<string, unknown>): never {
  const { $schema: _, ...rest } = singleTypeSchema(schema) as Record<string, unknown>;
  return rest as never;
}

/** The notes on ignored arguments recorded when `args` was validated. */
export function argNotes(args: object): string[] {
  return NOTES.get(args) ?? [];
}
