// Tool arguments as agents send them: names written for other tools (Octofs's and common ones)
// are mapped onto ours, and every argument we do not take is reported in one line naming the
// argument meant, never dropped silently. Also the JSON Schema rewrite that keeps `type` a single
// string (some serving stacks break on type arrays). Pure: no I/O, no SDK.

export interface ArgSpec {
  /** The tool's own argument names. */
  known: readonly string[];
  /** Other names accepted for an argument: alias → our name. */
  aliases?: Readonly<Record<string, string>>;
  /** What an argument we do not take was meant for, as a phrase: name → "…". */
  meant?: Readonly<Record<string, string>>;
  /** Arguments whose value may be a list of lines: a list of strings is joined with "\n". */
  lines?: readonly string[];
  /** Names besides `known` and the aliases that `rewrite` reads (e.g. workdir's "reset"). */
  reads?: readonly string[];
  /** A tool-specific rewrite run after the aliases (e.g. batch_edit's operations). */
  rewrite?: (args: Record<string, unknown>, notes: string[]) => void;
}

interface NormalizedArgs {
  args: Record<string, unknown>;
  /** One line per argument that was ignored, naming the argument meant. */
  notes: string[];
}

/** Names agents commonly use for an argument, whatever the tool: name → our name. */
const COMMON_MEANT: Readonly<Record<string, string>> = {
  start_line: "start",
  line_start: "start",
  from_line: "start",
  offset: "start",
  end_line: "end",
  line_end: "end",
  to_line: "end",
  file_path: "path",
  filepath: "path",
  file: "path",
  filename: "path",
  dir: "path",
  directory: "path",
  old_str: "old_text",
  new_str: "new_text",
  query: "content",
  search: "content",
  text: "content",
  workdir: "cwd",
  timeout: "timeout_seconds",
};

/**
 * Ignored arguments named one by one in the notes; past this many, one note names the first few
 * and counts the rest (an object of 300,000 stray keys once made a 51 MB reply).
 */
const MAX_NAMED_IGNORED = 5;

/**
 * Maps aliases, joins line lists, and lists what is ignored (and leaves it out of the args). One
 * pass over the keys: only the tool's own names, aliases and `reads` are copied, so a huge
 * object of stray keys costs a count, not a copy and a note per key.
 */
export function normalizeToolArgs(raw: unknown, spec: ArgSpec): NormalizedArgs {
  const notes: string[] = [];
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { args: {}, notes };
  const known = new Set(spec.known);
  const wanted = new Set([...spec.known, ...Object.keys(spec.aliases ?? {}), ...spec.reads ?? []]);
  const args: Record<string, unknown> = {};
  const ignored: string[] = [];
  let ignoredCount = 0;
  const source = raw as Record<string, unknown>;
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    if (wanted.has(key)) args[key] = source[key];
    else if (++ignoredCount <= MAX_NAMED_IGNORED + 1) ignored.push(key);
  }
  for (const [alias, name] of Object.entries(spec.aliases ?? {})) {
    if (!(alias in args) || known.has(alias)) continue;
    if (!(name in args)) args[name] = args[alias];
    else notes.push(`Ignored "${alias}": "${name}" was given too.`);
    delete args[alias];
  }
  for (const name of spec.lines ?? []) if (name in args) args[name] = joinLines(args[name]);
  spec.rewrite?.(args, notes);
  // What a rewrite read but did not consume is ignored like any other stray key.
  for (const key of Object.keys(args)) {
    if (known.has(key)) continue;
    if (++ignoredCount <= MAX_NAMED_IGNORED + 1) ignored.push(key);
    delete args[key];
  }
  if (ignoredCount > 0) notes.push(...ignoredNotes(ignored, ignoredCount, spec));
  return { args, notes };
}

/** A list of strings given where text is expected: its lines, joined. */
export function joinLines(value: unknown): unknown {
  return Array.isArray(value) && value.every((v) => typeof v === "string")
    ? value.join("\n")
    : value;
}

/** "true"/"false" given as strings where a boolean is expected. */
export function booleanFromString(value: unknown): unknown {
  return value === "true" ? true : value === "false" ? false : value;
}

/** One note per ignored argument when there are few; else one note naming a few and the count. */
function ignoredNotes(names: readonly string[], count: number, spec: ArgSpec): string[] {
  if (count <= MAX_NAMED_IGNORED) {
    return names.map((key) => `Ignored argument ${quoteName(key)}: ${meantFor(key, spec)}`);
  }
  const named = names.slice(0, MAX_NAMED_IGNORED).map((key) => {
    const meant = meantFor(key, spec);
    return meant.startsWith("this tool takes") ? quoteName(key) : `${quoteName(key)} (${meant})`;
  });
  const rest = count - named.length;
  return [
    `Ignored ${count.toLocaleString("en-US")} arguments this tool does not take: ${
      named.join(", ")
    } and ${rest.toLocaleString("en-US")} more; ${takes(spec)}`,
  ];
}

/** A stray key as a note quotes it: cut to 40 characters (a key may be megabytes long). */
function quoteName(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 39)}…` : key);
}

function takes(spec: ArgSpec): string {
  return `this tool takes ${spec.known.map((k) => `"${k}"`).join(", ")}.`;
}

/** What an ignored argument was probably meant as: a phrase, a "did you mean", or our names. */
function meantFor(key: string, spec: ArgSpec): string {
  const meant = spec.meant?.[key];
  if (meant !== undefined) return meant;
  const common = COMMON_MEANT[key];
  if (common !== undefined && spec.known.includes(common)) return `did you mean "${common}"?`;
  // Only short keys can be a typo of ours; a long one would make the distance costly.
  const close = key.length > 64
    ? undefined
    : spec.known.find((k) => editDistance(k, key) <= Math.min(2, k.length / 3));
  return close !== undefined ? `did you mean "${close}"?` : takes(spec);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** A JSON Schema whose `type` arrays are rewritten as `anyOf` of single types, recursively. */
export function singleTypeSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(singleTypeSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === "type" && Array.isArray(value)) continue;
    out[key] = singleTypeSchema(value);
  }
  const type = (schema as { type?: unknown }).type;
  if (Array.isArray(type)) {
    const anyOf = type.map((t) => ({ type: t }));
    const existing = out.anyOf;
    out.anyOf = Array.isArray(existing) ? [...existing, ...anyOf] : anyOf;
  }
  return out;
}

// Exported for tests.
/** Paths of every `type` array in a JSON Schema (empty when it is clean). */
export function typeArrays(schema: unknown, path = "$"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((v, i) => typeArrays(v, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  return Object.entries(schema as Record<string, unknown>).flatMap(([k, v]) =>
    k === "type" && Array.isArray(v) ? [`${path}.type`] : typeArrays(v, `${path}.${k}`)
  );
}
