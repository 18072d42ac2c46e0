// Validation messages for tool arguments of the wrong type. zod's default ("Invalid input")
// reaches the model as is; these say what was expected, what arrived, and that optional
// arguments are left out rather than sent as null (models often send null for "not set").
// Messages only: the JSON schemas stay the same.

/**
 * The `{ error }` parameter for a zod type: `name` must be `expected` (a phrase with examples).
 * `required` arguments say so for null; optional ones say to leave them out.
 */
export function argError(
  name: string,
  expected: string,
  required = false,
): { error: (issue: { input?: unknown }) => string } {
  return {
    error: (issue) =>
      issue.input === null
        ? required
          ? `${name} is null, but it is required: pass ${expected}.`
          : `${name} is null; no argument accepts null: leave ${name} out to use its default.`
        : `${name} must be ${expected}; got ${describeInput(issue.input)}.`,
  };
}

function describeInput(input: unknown): string {
  if (input === undefined) return "nothing";
  const json = JSON.stringify(input) ?? String(input);
  const shown = json.length > 60 ? `${json.slice(0, 60)}…` : json;
  return `${Array.isArray(input) ? "a list" : typeof input} ${shown}`;
}
