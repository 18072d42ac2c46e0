// Argument coercion shared by the view tool and `anchorfs view`: models send numbers as strings
// and booleans as "true"; each bad value gets an error naming the argument and an example value
// (the whole view call with the value fixed when the caller passes its CallFormatter, else an
// argument example: a JSON fragment for the model, the flag for a person).

import { sameFiles } from "./ports/file_backend.ts";
import { AnchorError } from "../core/errors.ts";
import { type CallFormatter, guide, type ToolArgs, viewArgExample } from "../core/next_step.ts";
import { isLineIdLike, type LineId, parseLineId } from "../core/edit/line_id.ts";
import type { Location } from "./location.ts";
import type { Session } from "./session.ts";

/** A position as given: a line number (negative counts from the end) or a verified line id. */
export type LinePosition = { kind: "number"; value: number } | { kind: "id"; id: LineId };

/** The view arguments these functions read, by name (each error's example names one). */
type ViewArgName = keyof ToolArgs["view"];

export function parsePosition(
  name: "start" | "end",
  raw: unknown,
  call: CallFormatter = viewArgExample,
): LinePosition | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw === "number") {
    if (!Number.isInteger(raw)) throw badPosition(name, raw, call);
    return { kind: "number", value: raw };
  }
  if (typeof raw === "string") {
    const text = raw.trim();
    if (/^[+-]?[0-9]+$/.test(text)) return { kind: "number", value: Number(text) };
    if (isLineIdLike(text)) return { kind: "id", id: parseLineId(text, name) };
  }
  throw badPosition(name, raw, call);
}

function badPosition(name: "start" | "end", raw: unknown, call: CallFormatter): AnchorError {
  return new AnchorError({
    code: "INVALID_ARGUMENT",
    message:
      `${name} ${
        JSON.stringify(raw)
      } is neither a line number nor a line id. Use a whole number (negative counts from the ` +
      'end: -1 is the last line) or an id "N:hh" as view shows it.',
    hint: guide`e.g. ${call({ [name]: name === "end" ? -1 : 10 })} or ${
      call({ [name]: "10:a3" })
    }.`,
  });
}

export function parseWholeNumber(
  name: ViewArgName,
  raw: unknown,
  example: number,
  call: CallFormatter = viewArgExample,
): number | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const value = typeof raw === "string" && /^\s*[+-]?[0-9]+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value === "number" && Number.isInteger(value)) return value;
  throw new AnchorError({
    code: "INVALID_ARGUMENT",
    message: `${name} ${JSON.stringify(raw)} is not a whole number.`,
    hint: guide`Pass a number, e.g. ${call({ [name]: example })}.`,
  });
}

export function parseFlag(
  name: ViewArgName,
  raw: unknown,
  call: CallFormatter = viewArgExample,
): boolean {
  if (raw === undefined || raw === null || raw === "") return false;
  if (typeof raw === "boolean") return raw;
  const text = String(raw).trim().toLowerCase();
  if (["true", "1", "yes"].includes(text)) return true;
  if (["false", "0", "no"].includes(text)) return false;
  throw new AnchorError({
    code: "INVALID_ARGUMENT",
    message: `${name} ${JSON.stringify(raw)} is not true or false.`,
    hint: guide`Pass a boolean, e.g. ${call({ [name]: true })}.`,
  });
}

/** How a file is named in output: relative to the working directory when inside it. */
export function displayPath(session: Session, location: Location): string {
  if (!sameFiles(location.backend, session.cwd.backend)) return location.url;
  const paths = location.backend.paths;
  const rel = paths.relativeTo(session.cwd.path, location.path);
  return paths.isAbsolute(rel) ? location.url : rel;
}
