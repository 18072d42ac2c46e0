// The GitHub Actions workflows cannot run on these machines: parse them and check that they name
// the jobs, targets and commands the release and CI rely on. Also renders the Homebrew formula.

import { parse } from "yaml";
import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { outputName, TARGETS } from "../../scripts/release/compile.ts";
import { parseSums, renderFormula } from "../../scripts/release/homebrew_formula.ts";
import { VERSION } from "../../lib/version.ts";
import { testPaths } from "../../scripts/test.ts";

interface Step {
  run?: string;
  uses?: string;
  if?: string;
}
interface Job {
  needs?: string | string[];
  steps: Step[];
  strategy?: { matrix: { os: string[] } };
}

async function workflow(name: string): Promise<{ on: unknown; jobs: Record<string, Job> }> {
  return parse(await Deno.readTextFile(`${REPO_ROOT}/.github/workflows/${name}`));
}

function runs(job: Job | undefined): string {
  return (job?.steps ?? []).map((s) => s.run ?? "").join("\n");
}

Deno.test("ci.yml runs .ci/run, which ends in the README's test command, on Linux, macOS and Windows on every push", async () => {
  const ci = await workflow("ci.yml");
  assertEquals(Object.keys(ci.on as object).sort(), ["pull_request", "push"]);
  const test = ci.jobs.test;
  assertEquals(test?.strategy?.matrix.os, ["ubuntu-latest", "macos-latest", "windows-latest"]);
  // One CI definition: the workflow's only command is .ci/run, on every runner (no `if`), in bash
  // (Git Bash on Windows), and no runner's failure cancels the others.
  const commands = (test?.steps ?? []).filter((s) => s.run !== undefined);
  assertEquals(commands.map((s) => s.run), [".ci/run"]);
  assertEquals(commands[0]?.if, undefined);
  assertEquals((commands[0] as { shell?: string }).shell, "bash");
  assertEquals((test?.strategy as { "fail-fast"?: boolean })["fail-fast"], false);
  // .ci/run's last command is the README's test command, the whole suite (no group, no path).
  const readme = await Deno.readTextFile(`${REPO_ROOT}/README.md`);
  const command = /^(npx -y deno@[\d.]+ task test)\b/m.exec(readme)?.[1];
  assertEquals(command, "npx -y deno@2.9.6 task test");
  const run = await Deno.readTextFile(`${REPO_ROOT}/.ci/run`);
  const lines = run.trim().split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  assertEquals(lines.at(-1), "deno task test");
  for (const check of ["deno fmt --check", "deno lint", "scripts/doc_check.ts"]) {
    assertStringIncludes(run, check);
  }
  const tasks = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`)).tasks;
  assertEquals(tasks.test, "deno run -A scripts/test.ts");
  assertEquals(testPaths([]), ["tests/"]);
});

Deno.test("release.yml compiles six targets, attaches checksums, publishes npm, JSR, registry, Homebrew", async () => {
  const release = await workflow("release.yml");
  assertEquals((release.on as { push: { tags: string[] } }).push.tags, ["v*"]);
  const { build, "github-release": gh, npm, jsr, "mcp-registry": registry, homebrew } =
    release.jobs;
  const buildRuns = runs(build);
  for (const target of TARGETS) assertStringIncludes(buildRuns, `--target ${target}`);
  assertStringIncludes(buildRuns, "deno task compile");
  assertStringIncludes(buildRuns, "deno task npm-pack");
  assertStringIncludes(buildRuns, "scripts/release/homebrew_formula.ts --sums dist/SHA256SUMS");
  assertStringIncludes(runs(gh), "gh release create");
  assertStringIncludes(runs(gh), "dist/SHA256SUMS");
  assertStringIncludes(runs(npm), "npm publish dist/anchorfs-*.tgz");
  assertStringIncludes(runs(jsr), "deno publish");
  assertStringIncludes(runs(registry), "mcp-publisher publish");
  assertStringIncludes(runs(homebrew), "Formula/anchorfs.rb");
  for (const job of [gh, npm, jsr, homebrew]) assertEquals(job?.needs !== undefined, true);
  // The tasks the workflow calls exist.
  const tasks = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`)).tasks;
  for (const task of ["compile", "npm-pack", "test"]) assertEquals(task in tasks, true, task);
});

Deno.test("the Homebrew formula is rendered from SHA256SUMS, one checksum per target", async () => {
  const template = await Deno.readTextFile(
    `${REPO_ROOT}/packaging/homebrew/anchorfs.rb.template`,
  );
  const lines = TARGETS.map((t, i) => `${String(i).repeat(64)}  ${outputName(t)}`);
  const formula = renderFormula(template, parseSums(lines.join("\n")));
  assertEquals(formula.includes("{{"), false);
  assertStringIncludes(formula, `version "${VERSION}"`);
  for (const [i, t] of TARGETS.entries()) {
    if (t.includes("windows")) continue;
    assertStringIncludes(
      formula,
      `/v${VERSION}/${outputName(t)}"\n      sha256 "${String(i).repeat(64)}"`,
    );
  }
  let error = "";
  try {
    renderFormula(template, parseSums(lines.slice(1).join("\n")));
  } catch (e) {
    error = (e as Error).message;
  }
  assertEquals(error, `SHA256SUMS has no line for "${outputName(TARGETS[0])}"`);
});
