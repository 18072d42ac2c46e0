// The public API's documentation gate (the `ok` task and .ci/run): `deno doc --lint` on the
// package entries must report nothing, and every `@example` in lib/ and the entries must
// type-check and run (`deno test --doc`). Prints what failed and exits 1.
//
// Usage: deno run -A scripts/doc_check.ts

// deno-lint-ignore-file no-console

/** The package entries deno.json exports: what `deno doc --lint` checks. */
export const ENTRIES = ["mod.ts", "main.ts"];

/**
 * Types from other packages that `deno doc --lint` 2.9 still calls private when a public
 * signature names them (denoland/deno#27364; fixed upstream by denoland/deno#34339). Their
 * documentation is their package's concern. Only these names are excused, and only for
 * `private-type-ref`: a type of ours that is not exported still fails.
 */
export const EXTERNAL_TYPES: ReadonlySet<string> = new Set([
  "McpServer", // @modelcontextprotocol/server: what ServerFactory builds
]);

/** One `error[...]` block of `deno doc --lint` output. */
export interface DocDiagnostic {
  rule: string;
  text: string;
}

/** Splits `deno doc --lint` output (NO_COLOR) into its error blocks; the summary line is dropped. */
export function parseDocLint(output: string): DocDiagnostic[] {
  const blocks = output.split(/\n(?=error\[)/);
  const out: DocDiagnostic[] = [];
  for (const block of blocks) {
    const m = /^error\[([a-z-]+)\]/.exec(block.trimStart());
    if (m) out.push({ rule: m[1]!, text: block.replace(/\nerror: Found \d+[^\n]*[\s\S]*$/, "") });
  }
  return out;
}

/** True for the upstream false positive only: a private-type-ref to a listed external type. */
export function isExcused(d: DocDiagnostic): boolean {
  if (d.rule !== "private-type-ref") return false;
  const m = /references private type '([^']+)'/.exec(d.text);
  return m !== null && EXTERNAL_TYPES.has(m[1]!);
}

async function run(args: string[]): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, text: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

async function main(): Promise<number> {
  let failed = false;
  const lint = await run(["doc", "--lint", ...ENTRIES]);
  const diagnostics = parseDocLint(lint.text);
  const problems = diagnostics.filter((d) => !isExcused(d));
  if (problems.length > 0 || (lint.code !== 0 && diagnostics.length === 0)) {
    console.log(problems.length > 0 ? problems.map((d) => d.text).join("\n") : lint.text);
    console.log(
      `doc: deno doc --lint ${ENTRIES.join(" ")} found ${problems.length || "a"} problem(s): ` +
        "document every exported symbol, and export every type a public signature names " +
        "(or stop exporting what is not meant to be public).",
    );
    failed = true;
  } else {
    console.log(`doc: deno doc --lint ${ENTRIES.join(" ")}: 0 problems`);
  }
  const examples = await run(["test", "-A", "--doc", "--frozen", ...ENTRIES, "lib/"]);
  const summary = /^(?:ok|FAILED) \| (\d+) passed \| (\d+) failed/m.exec(examples.text);
  if (examples.code !== 0) {
    console.log(examples.text.split("\n").filter((l) => !l.startsWith("Check ")).join("\n"));
    console.log("doc: deno test --doc failed: an @example no longer type-checks or runs.");
    failed = true;
  } else {
    console.log(`doc: deno test --doc: ${summary?.[1] ?? "?"} examples ran`);
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
