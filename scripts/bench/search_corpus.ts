// Builds the trees of the search and listing benchmark (scripts/bench/search_speed_bench.ts), outside
// the repository (under /tmp or a scratch folder). Not a test; needs `npm` on PATH and network for
// the two installed trees. Usage:
//   deno run -A scripts/bench/search_corpus.ts project DIR       # (a) ~29k files, .gitignored 280 MB node_modules
//   deno run -A scripts/bench/search_corpus.ts node-modules DIR  # (b) ~75k-file installed node_modules
//   deno run -A scripts/bench/search_corpus.ts small DIR N       # (c) N generated small files
// An existing tree is left as it is (delete it to rebuild).

const enc = new TextEncoder();
const note = (text: string): void => {
  Deno.stderr.writeSync(enc.encode(`${text}\n`));
};

/** (a): what an app with its dependencies installed looks like. */
const PROJECT_PACKAGES = [
  "@angular/compiler@21.2.26",
  "@angular/core@21.2.26",
  "@babel/core@7.29.13",
  "@mui/material@9.5.0",
  "@swc/core@1.16.22",
  "date-fns@4.4.0",
  "eslint@10.15.0",
  "jest@30.5.2",
  "lodash@4.18.1",
  "prettier@3.10.1",
  "react@19.3.1",
  "react-dom@19.3.1",
  "rxjs@7.8.2",
  "sass@1.108.2",
  "three@0.187.0",
  "typescript@7.0.2",
  "webpack@5.113.0",
];
/** Packages whose files are copied into the project as its own (not ignored) sources. */
const VENDORED = ["rxjs", "lodash", "eslint"];
/** (b): the tree of the earlier search benchmark (docs/benchmarks.md, "Content search vs rg"). */
const NODE_MODULES_PACKAGES = [
  "typescript",
  "next",
  "webpack",
  "@babel/core",
  "eslint",
  "jest",
  "aws-sdk",
  "@mui/material",
  "@mui/icons-material",
  "rxjs",
  "lodash",
  "@angular/core",
  "@angular/compiler",
  "three",
];

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const { code } = await new Deno.Command(cmd, { args, cwd, stdout: "null", stderr: "inherit" })
    .output();
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed with exit code ${code}`);
}

async function npmInstall(dir: string, packages: string[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/package.json`, '{"name":"bench-tree","private":true}\n');
  note(`npm install ${packages.length} packages into ${dir} ...`);
  await run("npm", [
    "install",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--legacy-peer-deps",
    ...packages,
  ], dir);
}

async function project(dir: string): Promise<void> {
  if (await exists(`${dir}/.gitignore`)) return note(`${dir}: exists, kept`);
  if (!await exists(`${dir}/node_modules`)) await npmInstall(dir, PROJECT_PACKAGES);
  // The project's own code: copies of a few packages' files, as in a monorepo with vendored code.
  await Deno.mkdir(`${dir}/packages`, { recursive: true });
  for (const name of VENDORED) {
    await run("cp", ["-r", `node_modules/${name}`, `packages/${name}`], dir);
  }
  // A nested ignore file, with a negation, as real repositories have.
  await Deno.writeTextFile(`${dir}/packages/lodash/.gitignore`, "*.min.js\n!core.min.js\n");
  await Deno.mkdir(`${dir}/.git/info`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.git/info/exclude`, "*.local\n");
  await Deno.writeTextFile(`${dir}/.gitignore`, "node_modules/\n/dist/\n*.log\ncoverage/\n");
}

async function nodeModules(dir: string): Promise<void> {
  if (await exists(`${dir}/node_modules`)) return note(`${dir}: exists, kept`);
  await npmInstall(dir, NODE_MODULES_PACKAGES);
  // Source maps ignored, as the earlier benchmark did: real ignore rules for every tool.
  await Deno.writeTextFile(`${dir}/.gitignore`, "*.map\n");
}

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "const",
  "value",
  "return",
  "function",
  "import",
  "export",
  "result",
  "items",
  "index",
  "config",
  "handler",
  "request",
  "response",
  "error",
  "await",
  "string",
  "number",
  "options",
];

/**
 * (c): N files of 100-600 bytes, 100 per directory, three levels deep. Every 50th directory is
 * ignored by the root .gitignore (`ignored-*`), every 20th file is a `.log` it ignores too; one
 * file in 10,000 holds `rare_needle_token`; every file holds `value` (a search that hits the cap).
 */
async function small(dir: string, count: number): Promise<void> {
  if (await exists(`${dir}/.gitignore`)) return note(`${dir}: exists, kept`);
  const next = random(count);
  await Deno.mkdir(dir, { recursive: true });
  const perDir = 100;
  const dirs = Math.ceil(count / perDir);
  let written = 0;
  for (let d = 0; d < dirs; d++) {
    const top = `${d % 50 === 49 ? "ignored" : "pkg"}-${Math.floor(d / 100)}`;
    const sub = `${dir}/${top}/mod-${Math.floor(d / 10) % 10}/part-${d % 10}`;
    Deno.mkdirSync(sub, { recursive: true });
    for (let f = 0; f < perDir && written < count; f++, written++) {
      const lines: string[] = [];
      const target = 100 + Math.floor(next() * 500);
      let size = 0;
      while (size < target) {
        const words = Array.from(
          { length: 3 + Math.floor(next() * 6) },
          () => WORDS[Math.floor(next() * WORDS.length)]!,
        );
        const line = `${words.join(" ")} = ${Math.floor(next() * 1e6)};`;
        lines.push(line);
        size += line.length + 1;
      }
      if (written % 10_000 === 5_000) lines.push("const found = rare_needle_token;");
      const ext = written % 20 === 19 ? "log" : "ts";
      Deno.writeTextFileSync(`${sub}/file-${f}.${ext}`, `${lines.join("\n")}\n`);
    }
    if (d % 1000 === 999) note(`${written} files`);
  }
  await Deno.writeTextFile(`${dir}/.gitignore`, "ignored-*/\n*.log\n");
}

const [kind, dir, n] = Deno.args;
if (!dir) {
  note("usage: search_corpus.ts project|node-modules|small DIR [N]");
  Deno.exit(2);
}
if (kind === "project") await project(dir);
else if (kind === "node-modules") await nodeModules(dir);
else if (kind === "small") await small(dir, Number(n ?? 10_000));
else {
  note(`unknown corpus ${JSON.stringify(kind)}: project, node-modules or small`);
  Deno.exit(2);
}
