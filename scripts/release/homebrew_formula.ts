// Renders the Homebrew formula (packaging/homebrew/anchorfs.rb.template) for a release from its
// SHA256SUMS, so the tap always points at the binaries the release attached. Prints the formula
// on stdout; the release workflow commits it to the tap.
//
// Usage: deno run -A scripts/release/homebrew_formula.ts --sums dist/SHA256SUMS [--version V]

import { parseArgs } from "node:util";
import { VERSION } from "../../lib/version.ts";
import { outputName, type Target, TARGETS } from "./compile.ts";
import { REPOSITORY } from "./npm_pack.ts";

const TEMPLATE = new URL("../../packaging/homebrew/anchorfs.rb.template", import.meta.url);

/** Parses sha256sum output ("HEX  NAME" per line) into name → hex. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line.trim());
    if (m) sums.set(m[2]!, m[1]!);
  }
  return sums;
}

/** Fills the template; throws naming the first placeholder it cannot fill. */
export function renderFormula(
  template: string,
  sums: Map<string, string>,
  version = VERSION,
  repository = REPOSITORY,
): string {
  return template.replace(/\{\{([a-z0-9:_-]+)\}\}/g, (_, key: string) => {
    if (key === "version") return version;
    if (key === "repository") return repository;
    if (key.startsWith("sha256:")) {
      const target = key.slice("sha256:".length);
      if (!(TARGETS as readonly string[]).includes(target)) {
        throw new Error(`the template names an unknown target ${JSON.stringify(target)}`);
      }
      const name = outputName(target as Target).replace(VERSION, version);
      const hex = sums.get(name);
      if (!hex) throw new Error(`SHA256SUMS has no line for ${JSON.stringify(name)}`);
      return hex;
    }
    throw new Error(`the template has an unknown placeholder {{${key}}}`);
  });
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { sums: { type: "string" }, version: { type: "string", default: VERSION } },
  });
  try {
    if (!values.sums) throw new Error("--sums FILE is required");
    const formula = renderFormula(
      await Deno.readTextFile(TEMPLATE),
      parseSums(await Deno.readTextFile(values.sums)),
      values.version,
    );
    await Deno.stdout.write(new TextEncoder().encode(formula));
  } catch (e) {
    // deno-lint-ignore no-console
    console.error(
      `error: ${(e as Error).message}\nhint: deno task compile first; it writes dist/SHA256SUMS`,
    );
    Deno.exit(2);
  }
}
