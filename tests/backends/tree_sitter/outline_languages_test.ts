// Outlines of real parses: one fixture per language (tests/fixtures/outline/sample.*) against
// its known declarations, doc-comment starts and line ranges; every TypeScript file of this
// repository against Deno's own parser; and the signatures, names and nesting rows show.

import { assert, assertEquals } from "../../_assert.ts";
import { REPO_ROOT } from "../../_harness.ts";
import { TreeSitterParser } from "../../../lib/backends/tree_sitter/tree_sitter_parser.ts";
import type { Declaration } from "../../../lib/core/outline/declaration.ts";
import { languageFor } from "../../../lib/core/outline/languages.ts";

const parser = new TreeSitterParser();

async function outlineOf(path: string, text?: string): Promise<Declaration[]> {
  const source = text ?? await Deno.readTextFile(path);
  const name = path.split("/").pop()!;
  const language = languageFor(name, source.split("\n")[0]);
  assert(language, `no language for ${name}`);
  const parsed = await parser.outline(source, language);
  assert(parsed, "the parse was not stopped");
  return parsed.declarations;
}

/** `kind qualified docStart/start-end`, indented by nesting. */
function rows(decls: readonly Declaration[], depth = 0, out: string[] = []): string[] {
  for (const d of decls) {
    out.push(`${"  ".repeat(depth)}${d.kind} ${d.qualified} ${d.docStart}/${d.start}-${d.end}`);
    rows(d.children, depth + 1, out);
  }
  return out;
}

const EXPECTED: Record<string, string[]> = {
  ts: [
    "constant MAX_JOBS 5/6-6",
    "type JobId 8/8-8",
    "interface JobSpec 10/10-13",
    "enum JobState 15/15-18",
    "class JobManager 20/24-45",
    "  method JobManager.constructor 27/27-29",
    "  method JobManager.start 31/32-36",
    "  method JobManager.stop 38/38-40",
    "  method JobManager.size 42/42-44",
    "function formatJob 47/47-49",
    "function parseJob 51/51-51",
    "namespace Internal 53/53-57",
    "  function Internal.helper 54/54-56",
  ],
  tsx: [
    "interface Props 4/4-6",
    "function Title 8/9-11",
    "function Box 13/13-13",
    "class Panel 15/15-19",
    "  method Panel.render 16/16-18",
  ],
  js: [
    "constant MAX_JOBS 4/4-4",
    "class JobManager 6/7-19",
    "  method JobManager.constructor 8/8-11",
    "  method JobManager.start 13/14-18",
    "function formatJob 21/21-23",
    "function parseJob 25/25-27",
  ],
  py: [
    "constant MAX_JOBS 5/5-5",
    "class JobManager 8/8-29",
    "  method JobManager.__init__ 13/13-15",
    "  method JobManager.start 17/18-22",
    "  method JobManager.size 24/24-26",
    "  class JobManager.Error 28/28-29",
    "function format_job 32/32-33",
    "function wait_for 36/36-37",
  ],
  go: [
    "constant MaxJobs 6/7-7",
    "variable registry 9/9-9",
    "struct JobSpec 11/12-14",
    "interface Runner 16/16-18",
    "struct JobManager 20/21-23",
    "method JobManager.Start 25/26-30",
    "method JobManager.Size 32/32-34",
    "function FormatJob 36/37-39",
  ],
  rs: [
    "constant MAX_JOBS 5/6-6",
    "constant NAME 8/8-8",
    "struct JobSpec 10/12-14",
    "enum JobState 16/16-19",
    "trait Runner 21/21-23",
    "  method Runner.run 22/22-22",
    "struct JobManager 25/26-28",
    "impl JobManager 30/30-41",
    "  method JobManager.start 31/32-36",
    "  method JobManager.size 38/38-40",
    "function format_job 43/43-45",
    "module internal 47/47-51",
    "  function internal.helper 48/48-50",
  ],
  java: [
    "class JobManager 6/7-31",
    "  constant JobManager.MAX_JOBS 8/8-8",
    "  method JobManager.JobManager 12/12-13",
    "  method JobManager.start 15/16-20",
    "  method JobManager.size 22/22-24",
    "  interface JobManager.Runner 26/26-28",
    "    method JobManager.Runner.run 27/27-27",
    "  enum JobManager.State 30/30-30",
  ],
  c: [
    "macro MAX_JOBS 4/4-4",
    "struct job_spec 6/7-9",
    "type job_state 11/11-11",
    "function format_job 13/14-16",
    "function main 18/18-22",
  ],
  cpp: [
    "namespace jobs 5/5-40",
    "  constant jobs.MAX_JOBS 7/8-8",
    "  struct jobs.JobSpec 10/10-12",
    "  enum jobs.JobState 14/14-14",
    "  class jobs.JobManager 16/17-30",
    "    method jobs.JobManager.start 19/20-24",
    "    method jobs.JobManager.size 26/26-26",
    "  function jobs.JobManager.size 32/32-34",
    "  function jobs.format_job 36/36-38",
  ],
  cs: [
    "namespace Jobs 4/4-35",
    "  class Jobs.JobManager 6/7-22",
    "    constant Jobs.JobManager.MaxJobs 9/9-9",
    "    property Jobs.JobManager.Size 13/13-13",
    "    method Jobs.JobManager.Start 15/16-21",
    "  interface Jobs.IRunner 24/24-27",
    "    method Jobs.IRunner.Run 26/26-26",
    "  enum Jobs.JobState 29/29-29",
    "  struct Jobs.JobSpec 31/31-34",
  ],
  rb: [
    "constant MAX_JOBS 3/3-3",
    "module Jobs 5/5-28",
    "  class Jobs.JobManager 6/7-23",
    "    method Jobs.JobManager.initialize 8/8-11",
    "    method Jobs.JobManager.start 13/14-18",
    "    method Jobs.JobManager.create 20/20-22",
    "  method Jobs.format_job 25/25-27",
  ],
  php: [
    "namespace Jobs 4/4-4",
    "constant MAX_JOBS 6/6-6",
    "interface Runner 8/8-11",
    "  method Runner.run 10/10-10",
    "class JobManager 13/14-25",
    "  method JobManager.start 18/19-24",
    "trait Sized 27/27-33",
    "  method Sized.size 29/29-32",
    "function format_job 35/35-38",
  ],
  sh: [
    "function start_job 6/7-10",
    "function stop_job 12/12-14",
  ],
  ps1: [
    "function Start-AnchorJob 5/6-9",
    "class JobManager 11/11-17",
    "  method JobManager.Start 14/14-16",
  ],
  css: [
    "rule :root 1/2-4",
    "rule .button, .button:hover 6/7-10",
    "rule @media (max-width: 600px) 12/12-16",
    "  rule @media (max-width: 600px) .button 13/13-15",
    "rule @keyframes spin 18/18-21",
  ],
};

for (const [ext, expected] of Object.entries(EXPECTED)) {
  Deno.test(`outline of sample.${ext}: declarations, doc comments and line ranges`, async () => {
    const decls = await outlineOf(`${REPO_ROOT}/tests/fixtures/outline/sample.${ext}`);
    assertEquals(rows(decls), expected);
  });
}

Deno.test("signatures: what follows the name up to the body, whitespace collapsed, cut at 100", async () => {
  const decls = await outlineOf(`${REPO_ROOT}/tests/fixtures/outline/sample.ts`);
  const byName = new Map(
    [...decls, ...decls.flatMap((d) => d.children)].map((d) => [d.qualified, d]),
  );
  assertEquals(byName.get("JobManager")?.signature, "extends EventEmitter");
  assertEquals(byName.get("JobManager.start")?.signature, "(spec: JobSpec): JobId");
  assertEquals(byName.get("MAX_JOBS")?.signature, "= 4");
  assertEquals(byName.get("parseJob")?.signature, "= (text: string): JobSpec =>");
  const long = await outlineOf(
    "long.ts",
    `export function wide(\n${
      Array.from({ length: 20 }, (_, i) => `  argument${i}: number,`).join("\n")
    }\n): void {}\n`,
  );
  assertEquals(long[0]!.signature.length, 100);
  assert(long[0]!.signature.startsWith("(argument0: number, argument1: number,"));
  assert(long[0]!.signature.endsWith("…"));
  const py = await outlineOf(`${REPO_ROOT}/tests/fixtures/outline/sample.py`);
  assertEquals(py.find((d) => d.name === "wait_for")?.signature, "(job_id: str) -> bool");
});

Deno.test("overloads, getters with setters and Python property setters are one declaration", async () => {
  const ts = await outlineOf(
    "over.ts",
    "export function f(a: string): string;\nexport function f(a: number): number;\n" +
      "export function f(a: unknown) {\n  return a;\n}\nclass C {\n  get v() { return 1; }\n" +
      "  set v(x) {}\n}\n",
  );
  assertEquals(rows(ts), ["function f 1/1-5", "class C 6/6-9", "  method C.v 7/7-8"]);
  const py = await outlineOf(
    "prop.py",
    "class C:\n    @property\n    def v(self):\n        return 1\n\n    @v.setter\n" +
      "    def v(self, x):\n        pass\n",
  );
  assertEquals(rows(py), ["class C 1/1-8", "  method C.v 2/2-8"]);
});

Deno.test("shebang scripts without an extension are outlined by their interpreter", async () => {
  const decls = await outlineOf("deploy", "#!/usr/bin/env bash\nrun() {\n  echo hi\n}\n");
  assertEquals(rows(decls), ["function run 2/2-4"]);
});

/** Functions, classes, methods, interfaces, types and enums as Deno's parser reports them. */
function denoDeclarations(path: string, source: string): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const plugin: Deno.lint.Plugin = {
    name: "outline",
    rules: {
      "declarations": {
        create(context) {
          const text = context.sourceCode.text;
          const lineAt = (offset: number) => text.slice(0, offset).split("\n").length;
          const add = (name: string | undefined, node: Deno.lint.Node) => {
            if (!name) return;
            if (seen.has(name)) found.delete(name); // overloads, or a name used twice: skipped
            else found.set(name, `${lineAt(node.range[0])}-${lineAt(node.range[1])}`);
            seen.add(name);
          };
          // deno-lint-ignore no-explicit-any
          const named = (node: any) => node.id?.name as string | undefined;
          return {
            "Program > FunctionDeclaration, Program > ExportNamedDeclaration > FunctionDeclaration"(
              node: Deno.lint.Node,
            ) {
              add(named(node), node);
            },
            "ClassDeclaration"(node: Deno.lint.Node) {
              add(named(node), node);
            },
            "TSInterfaceDeclaration, TSTypeAliasDeclaration, TSEnumDeclaration"(
              node: Deno.lint.Node,
            ) {
              add(named(node), node);
            },
            // deno-lint-ignore no-explicit-any
            "ClassDeclaration MethodDefinition"(node: any) {
              const cls = node.parent?.parent?.id?.name;
              // A #private method is named with its #, as the source writes it.
              const key = node.key?.type === "PrivateIdentifier"
                ? `#${node.key.name}`
                : node.key?.name ?? node.key?.value;
              if (cls && key && node.value?.body) add(`${cls}.${key}`, node);
            },
          };
        },
      },
    },
  };
  Deno.lint.runPlugin(plugin, path, source);
  return found;
}

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await sources(rel));
    else if (rel.endsWith(".ts") && !rel.endsWith(".d.ts")) out.push(rel);
  }
  return out.sort();
}

Deno.test("every TypeScript file of lib/ outlines as Deno's parser reads it (names and lines)", async () => {
  let compared = 0;
  const wrong: string[] = [];
  for (const path of await sources("lib")) {
    const source = await Deno.readTextFile(`${REPO_ROOT}/${path}`);
    const ours = new Map<string, string>();
    const walk = (decls: readonly Declaration[]) => {
      for (const d of decls) {
        ours.set(d.qualified, `${d.start}-${d.end}`);
        walk(d.children);
      }
    };
    walk(await outlineOf(path, source));
    for (const [name, lines] of denoDeclarations(path, source)) {
      compared++;
      if (ours.get(name) !== lines) {
        wrong.push(`${path} ${name}: deno ${lines}, outline ${ours.get(name)}`);
      }
    }
  }
  assert(compared > 1000, `only ${compared} declarations compared`);
  assertEquals(wrong, []);
});

Deno.test("a long parse runs in slices: other work runs meanwhile, two parses do not mix, a stop drops it", async () => {
  const base = await Deno.readTextFile(
    `${REPO_ROOT}/scripts/bench/fixtures/large_files/zod/schemas.ts`,
  );
  const ts = languageFor("a.ts")!;
  const py = languageFor("a.py")!;
  const pySource = await Deno.readTextFile(
    `${REPO_ROOT}/scripts/bench/fixtures/large_files/attrs/_make.py`,
  );
  const alone = [(await parser.outline(base, ts))!, (await parser.outline(pySource, py))!];
  let turns = 0;
  const timer = setInterval(() => turns++, 1);
  const [a, b] = await Promise.all([
    parser.outline(base.repeat(4), ts),
    parser.outline(pySource, py),
  ]);
  clearInterval(timer);
  assert(turns > 2, `the event loop turned ${turns} times during the parses`);
  assertEquals(a!.declarations.length, alone[0]!.declarations.length * 4);
  assertEquals(rows(b!.declarations), rows(alone[1]!.declarations));
  let asked = 0;
  assertEquals(await parser.outline(base.repeat(4), ts, () => ++asked > 3), null);
  // The parser is not left half-way: the next parse of the same text is whole.
  assertEquals(
    (await parser.outline(base, ts))!.declarations.length,
    alone[0]!.declarations.length,
  );
});
