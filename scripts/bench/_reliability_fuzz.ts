// Fuzzed tool calls for the reliability benchmark: fast-check arbitraries over every tool's
// arguments, mostly plausible values with a few hostile ones (huge strings, devices, FIFOs,
// symlinks, catastrophic regexes, odd numbers). Writing tools only ever get paths inside the
// scratch directory; shell only gets a fixed policy-safe command set.

import fc from "fast-check";
import { formatLineId } from "../../lib/core/edit/line_id.ts";

export interface FuzzCall {
  tool: string;
  args: Record<string, unknown>;
}

/** Files the fixture creates in the scratch directory (relative names). */
export const FIXTURE_FILES = [
  "small.txt",
  "crlf.txt",
  "long.txt",
  "empty.txt",
  "bin.dat",
  "sub/nested.ts",
  "with space.txt",
  "ünï cødé.txt",
  ".hidden.txt",
];
/** Hostile entries of the fixture: a FIFO, links to a device, nowhere and themselves. */
export const HOSTILE_FILES = ["fifo", "zero_link", "dangling_link", "loop_link", "sparse.img"];

/** (Re)creates the fixture in `dir`; `sparseBytes` sizes the sparse file. */
export async function writeFixture(dir: string, sparseBytes: number): Promise<void> {
  await Deno.mkdir(`${dir}/sub`, { recursive: true });
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}: value = ${i * 7};`);
  await Deno.writeTextFile(`${dir}/small.txt`, lines.join("\n") + "\n");
  await Deno.writeTextFile(`${dir}/crlf.txt`, lines.join("\r\n") + "\r\n");
  await Deno.writeTextFile(`${dir}/long.txt`, `${"a".repeat(50_000)}b\nshort line\n`);
  await Deno.writeTextFile(`${dir}/empty.txt`, "");
  const bin = new Uint8Array(4096);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 131 + 7) & 0xff;
  await Deno.writeFile(`${dir}/bin.dat`, bin);
  await Deno.writeTextFile(`${dir}/sub/nested.ts`, "export const x = 1;\n}\n}\n");
  await Deno.writeTextFile(`${dir}/with space.txt`, "space\n");
  await Deno.writeTextFile(`${dir}/ünï cødé.txt`, "ünï\n");
  await Deno.writeTextFile(`${dir}/.hidden.txt`, "hidden\n");
  const ensure = async (name: string, make: () => Promise<void>) => {
    try {
      await Deno.lstat(`${dir}/${name}`);
    } catch {
      await make();
    }
  };
  await ensure("fifo", async () => {
    await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
  });
  await ensure("zero_link", () => Deno.symlink("/dev/zero", `${dir}/zero_link`));
  await ensure("dangling_link", () => Deno.symlink("nope/nothing", `${dir}/dangling_link`));
  await ensure("loop_link", () => Deno.symlink("loop_link", `${dir}/loop_link`));
  await ensure("sparse.img", async () => {
    await new Deno.Command("truncate", { args: ["-s", String(sparseBytes), `${dir}/sparse.img`] })
      .output();
  });
}

const oneOfWeighted = <T>(
  ...items: [number, fc.Arbitrary<T>][]
): fc.Arbitrary<T> => fc.oneof(...items.map(([weight, arbitrary]) => ({ weight, arbitrary })));

const hugeString = fc.constantFrom(
  "x".repeat(1_000_000),
  "\n".repeat(200_000),
  "é".repeat(300_000),
  "\u0000".repeat(100_000),
);

const plainText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("line 3: value = 14;", "value", "\n", "", "}\n}", "line", "\\n", "\r\n", "a"),
);

const text = oneOfWeighted<string>([30, plainText], [1, hugeString]);

/** Paths writing tools may get: inside the scratch directory only. */
const writablePath = oneOfWeighted<string>(
  [20, fc.constantFrom(...FIXTURE_FILES, "new.txt", "sub/new.ts", "nope/deep/new.txt")],
  [2, fc.constantFrom(...HOSTILE_FILES, "sub", ".", "a\u0000b", "x".repeat(5000), "", "sub/")],
  [2, fc.string({ maxLength: 12 }).map((s) => `gen_${s.replace(/[/.\\~]/g, "_")}`)],
);

/** Paths read-only tools may get: also devices, /proc, parents and odd forms. */
const readablePath = oneOfWeighted<string>(
  [20, writablePath],
  [2, fc.constantFrom("..", "/", "~", "sub|.", "*", "small.txt|crlf.txt", "/etc/hostname")],
  [1, fc.constantFrom("/dev/zero", "/dev/urandom", "/dev/null", "/proc/self/status")],
  [1, fc.constantFrom("ssh://nohost.invalid/x", "ssh://", "ssh://[::1", "file:///etc")],
);

const oddNumber = fc.constantFrom(
  0,
  -1,
  -0,
  1e9,
  -1e9,
  2 ** 53 + 1,
  1e308,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
);

/** The fixture's small.txt lines, so generated ids are often right (and edits land). */
const SMALL_LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}: value = ${i * 7};`);

const lineRef = oneOfWeighted<string | number>(
  [6, fc.integer({ min: 1, max: 20 }).map((n) => formatLineId(n, SMALL_LINES[n - 1]!))],
  [3, fc.integer({ min: -25, max: 25 })],
  [1, oddNumber],
  [
    1,
    fc.tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 255 })).map(([n, h]) =>
      `${n}:${h.toString(16).padStart(2, "0")}`
    ),
  ],
  [1, fc.constantFrom("abc", "", "1:", ":ff", "3:zz", "12:a3|x", "-1")],
);

/** An optional argument: left out half the time. */
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

const regexes = fc.constantFrom(
  "line",
  "(?i)VALUE",
  "va.ue",
  "[",
  "(",
  "a{2,1}",
  "\\",
  "(?<n>x)\\k<n>",
  "^$",
  ".*",
  "a+$",
);
const catastrophic = fc.constantFrom("^(a|aa)+$", "^(a+)+$", "(x+x+)+y", "^(\\w+\\s?)*$");

const anyViewArgs = fc.record({
  path: readablePath,
  start: opt(lineRef),
  end: opt(lineRef),
  content: opt(oneOfWeighted<string>([10, plainText], [5, regexes], [1, hugeString])),
  regex: opt(fc.oneof(fc.boolean(), fc.constantFrom("true", "false", "yes", 1))),
  context: opt(fc.oneof(fc.integer({ min: -2, max: 60 }), oddNumber, fc.constantFrom("2", "x"))),
  pattern: opt(
    fc.constantFrom("*.txt", "!*.txt", "{a,b", "[", "**/**/**", "*.{ts,txt}|!sub/**", "\\#"),
  ),
  include_hidden: opt(fc.oneof(fc.boolean(), fc.constantFrom("true", "maybe"))),
  max_depth: opt(fc.oneof(fc.integer({ min: -1, max: 5 }), oddNumber, fc.constant("2"))),
});

/** Mostly well-formed views (file, range, search, listing), some with anything in any key. */
const viewArgs = oneOfWeighted<Record<string, unknown>>(
  [3, fc.record({ path: readablePath })],
  [3, fc.record({ path: readablePath, start: lineRef, end: opt(lineRef) })],
  [
    4,
    fc.record({
      path: oneOfWeighted<string>([3, fc.constantFrom(".", "small.txt", "sub")], [1, readablePath]),
      content: oneOfWeighted<string>([10, plainText], [5, regexes], [1, hugeString]),
      regex: opt(fc.boolean()),
      context: opt(fc.integer({ min: 0, max: 50 })),
      pattern: opt(fc.constantFrom("*.txt", "!*.txt", "**/**/**", "*.{ts,txt}|!sub/**")),
    }),
  ],
  [
    2,
    fc.record({
      path: fc.constantFrom(".", "sub", "..", "/proc/self/fd"),
      include_hidden: opt(fc.boolean()),
      max_depth: opt(fc.integer({ min: 1, max: 4 })),
      pattern: opt(fc.constantFrom("*.txt", "!*.txt", "{a,b", "[", "**/**/**")),
    }),
  ],
  [3, anyViewArgs],
);

/** A view that hits the catastrophic regex on the 50,001-character line. */
const pathologicalView = fc.record({
  path: fc.constantFrom("long.txt", "."),
  content: catastrophic,
  regex: fc.constant(true),
});

/** Mostly small.txt, so that str_replace and batch_edit often succeed. */
const editPath = oneOfWeighted<string>([3, fc.constant("small.txt")], [2, writablePath]);

const textEditorArgs = fc.record({
  command: fc.constantFrom("create", "str_replace", "str_replace", "delete", "undo_edit", "bogus"),
  path: editPath,
  file_text: opt(text),
  old_text: opt(
    oneOfWeighted<string>([3, fc.constantFrom(...SMALL_LINES, "value", "line 1")], [2, text]),
  ),
  new_text: opt(text),
  replace_all: opt(fc.oneof(fc.boolean(), fc.constant("true"))),
});

const anyOperation = fc.record({
  op: fc.constantFrom("replace", "insert", "delete", "REPLACE"),
  anchor: opt(lineRef),
  start: opt(lineRef),
  end: opt(lineRef),
  content: opt(text),
});
const smallId = (n: number) => formatLineId(n, SMALL_LINES[n - 1]!);
const operation = oneOfWeighted<Record<string, unknown>>(
  [
    6,
    fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 3 }), text).map((
      [n, k, content],
    ) => ({ op: "replace", start: smallId(n), end: smallId(Math.min(20, n + k)), content })),
  ],
  [
    4,
    fc.tuple(fc.integer({ min: 0, max: 20 }), text).map(([n, content]) => ({
      op: "insert",
      anchor: n === 0 ? 0 : smallId(n),
      content,
    })),
  ],
  [2, fc.record({ op: fc.constant("replace"), start: lineRef, end: opt(lineRef), content: text })],
  [1, fc.record({ op: fc.constant("insert"), anchor: lineRef, content: text })],
  [1, anyOperation],
);

const batchEditArgs = fc.record({
  path: editPath,
  operations: oneOfWeighted<unknown>(
    [8, fc.array(operation, { minLength: 1, maxLength: 1 })],
    [3, fc.array(operation, { minLength: 2, maxLength: 4 })],
    [1, fc.array(operation, { maxLength: 3 }).map((ops) => JSON.stringify(ops))],
    [1, fc.constantFrom("[", "not json", "[]", "{}")],
  ),
});

const extractArgs = fc.record({
  from_path: oneOfWeighted<string>([20, fc.constant("small.txt")], [10, readablePath], [
    1,
    fc.constant("/dev/zero"),
  ]),
  start: lineRef,
  end: opt(lineRef),
  to_path: writablePath,
  position: oneOfWeighted<string | number>([3, fc.constantFrom(0, -1)], [1, lineRef]),
});

const workdirArgs = fc.record({
  action: opt(fc.constantFrom("get", "set", "reset", "bogus")),
  path: opt(fc.constantFrom("sub", "nope", "small.txt", "fifo", "", ".", "sub/")),
});

/** Shell commands that pass the policy and only touch the scratch directory. */
const SAFE_COMMANDS = [
  "echo hi",
  "pwd",
  "true",
  "false",
  "exit 3",
  "seq 1 3000 | wc -l",
  "head -c 200000 /dev/zero | wc -c",
  "printf 'a\\0b\\x01c\\x1b[31mred\\n'",
  "head -c 300000 /dev/zero",
  "timeout 1 tail -f /dev/null; echo slow",
  "echo out; echo err >&2; exit 1",
  "ls sub",
  "cat small.txt",
  "sleep 1",
];
const shellArgs = fc.record({
  command: fc.oneof(
    fc.constantFrom(...SAFE_COMMANDS),
    fc.string({ maxLength: 30 }).map((s) => `echo '${s.replace(/'/g, `'\\''`)}'`),
  ),
  cwd: opt(fc.constantFrom("sub", "nope", "small.txt", ".", "fifo")),
});

/** jobs args; `ids` are real job ids seen so far (substituted at run time for "@job"). */
const jobsArgs = fc.record({
  action: fc.constantFrom("list", "read", "wait", "kill", "bogus"),
  id: fc.constantFrom("@job", "@job", "@job", "1-1", "", "x".repeat(300)),
  timeout_seconds: opt(fc.oneof(fc.constantFrom(0.1, 0.5, 2), oddNumber)),
  bytes: opt(fc.oneof(fc.constantFrom(1, 100, 30720, 1048576), oddNumber)),
});

/** Arguments of the wrong type altogether. */
const garbageArgs = fc.dictionary(
  fc.constantFrom("path", "command", "operations", "action", "content", "start", "id"),
  fc.anything({ maxDepth: 2 }),
);

export const fuzzCall: fc.Arbitrary<FuzzCall> = oneOfWeighted<FuzzCall>(
  [30, viewArgs.map((args) => ({ tool: "view", args }))],
  [1, pathologicalView.map((args) => ({ tool: "view", args }))],
  [25, textEditorArgs.map((args) => ({ tool: "text_editor", args }))],
  [20, batchEditArgs.map((args) => ({ tool: "batch_edit", args }))],
  [15, extractArgs.map((args) => ({ tool: "extract_lines", args }))],
  [8, workdirArgs.map((args) => ({ tool: "workdir", args }))],
  [12, shellArgs.map((args) => ({ tool: "shell", args }))],
  [12, jobsArgs.map((args) => ({ tool: "jobs", args }))],
  [
    5,
    fc.tuple(
      fc.constantFrom("view", "text_editor", "batch_edit", "extract_lines", "workdir", "jobs"),
      garbageArgs,
    ).map(([tool, args]) => ({ tool, args })),
  ],
);

/** `n` calls, reproducible from `seed`. */
export function sampleCalls(n: number, seed: number): FuzzCall[] {
  return fc.sample(fuzzCall, { numRuns: n, seed });
}

/** A short, printable rendering of a call for reports (long strings cut). */
export function describeCall(call: FuzzCall): string {
  const json = JSON.stringify(call.args, (_k, v) => {
    if (typeof v === "string" && v.length > 60) {
      return `${v.slice(0, 20)}…(${v.length.toLocaleString("en")} chars)`;
    }
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    return v;
  });
  return `${call.tool} ${json.length > 300 ? `${json.slice(0, 300)}…` : json}`;
}
