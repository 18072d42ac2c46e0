import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { findRuntime, outputName, targetEnvVar, TARGETS } from "../../scripts/compile.ts";
import { tempDir } from "../_harness.ts";

Deno.test("compile script covers Linux, macOS and Windows on x86_64 and ARM64", () => {
  for (const os of ["linux", "darwin", "windows"]) {
    for (const arch of ["x86_64", "aarch64"]) {
      assertEquals(
        TARGETS.some((t) => t.startsWith(arch) && t.includes(os)),
        true,
        `${arch} ${os}`,
      );
    }
  }
  assertEquals(outputName("x86_64-pc-windows-msvc").endsWith(".exe"), true);
  assertEquals(targetEnvVar("aarch64-apple-darwin"), "DENORT_BIN_AARCH64_APPLE_DARWIN");
});

Deno.test("compile script honours DENORT_BIN and refuses a missing file or the deno CLI", async () => {
  await using dir = await tempDir();
  const denort = `${dir.path}/denort`;
  await Deno.writeTextFile(denort, "stand-in");
  const saved = Deno.env.get("DENORT_BIN");
  try {
    Deno.env.set("DENORT_BIN", denort);
    assertEquals(await findRuntime("x86_64-unknown-linux-gnu", 1), {
      kind: "env",
      variable: "DENORT_BIN",
      path: denort,
    });
    Deno.env.set("DENORT_BIN", `${dir.path}/missing`);
    const missing = await findRuntime("x86_64-unknown-linux-gnu", 1);
    assertEquals(missing.kind, "missing");
    if (missing.kind === "missing") assertStringIncludes(missing.reason, "does not exist");
    Deno.env.set("DENORT_BIN", Deno.execPath());
    const cli = await findRuntime("x86_64-unknown-linux-gnu", 1);
    assertEquals(cli.kind, "missing");
    if (cli.kind === "missing") assertStringIncludes(cli.reason, "not the denort runtime");
  } finally {
    if (saved === undefined) Deno.env.delete("DENORT_BIN");
    else Deno.env.set("DENORT_BIN", saved);
  }
});
