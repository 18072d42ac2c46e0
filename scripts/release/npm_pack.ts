// Builds the npm package `anchorfs` in dist/npm (the bundle: its entry and its modules folder with
// the core file's chunks, the outline worker, re2js and tree-sitter/ wasm files; the launcher and
// the postinstall that makes it exec Deno, from packaging/npm/bin; LICENSE, README and a
// package.json whose only dependency is the pinned `deno` npm package) and packs it with
// `npm pack`. Publishing is the release workflow's job: `npm publish dist/anchorfs-*.tgz`.
//
// Usage: deno run -A scripts/release/npm_pack.ts [--out DIR]   (prints the tarball's path on stdout)

import { parseArgs } from "node:util";
import { bundle, MODULES_DIR } from "./bundle.ts";
import { VERSION } from "../../lib/version.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The Deno release the bundle is built and tested with; the launcher runs exactly this one. */
export const DENO_VERSION = "2.9.6";
/** The server's name in the MCP registry; npm checks it against package.json's `mcpName`. */
export const MCP_NAME = "io.github.anchorfs/anchorfs";
export const REPOSITORY = "https://github.com/anchorfs/anchorfs";

export function packageJson(version = VERSION): Record<string, unknown> {
  return {
    name: "anchorfs",
    version,
    description:
      "MCP server and CLI giving AI coding agents a file system and shell with verified line ids",
    license: "MIT",
    mcpName: MCP_NAME,
    repository: { type: "git", url: `git+${REPOSITORY}.git` },
    homepage: `${REPOSITORY}#readme`,
    keywords: ["mcp", "model-context-protocol", "mcp-server", "ai", "agent", "filesystem"],
    type: "module",
    bin: { anchorfs: "bin/anchorfs.cjs" },
    // Linux and macOS: the command becomes a script that execs Deno (packaging/npm/bin/install.cjs).
    scripts: { postinstall: "node bin/install.cjs" },
    files: [
      "anchorfs.js",
      // The whole folder: its chunks' names carry content hashes that change with the code.
      `${MODULES_DIR}/`,
      "bin/anchorfs.cjs",
      "bin/install.cjs",
      "LICENSE",
      "README.md",
    ],
    engines: { node: ">=18" },
    dependencies: { deno: DENO_VERSION },
  };
}

/** Writes the package directory `dir` (replacing it) and returns it. */
export async function buildNpmPackage(dir: string): Promise<string> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await bundle(`${dir}/anchorfs.js`);
  await Deno.copyFile(`${ROOT}/packaging/npm/bin/anchorfs.cjs`, `${dir}/bin/anchorfs.cjs`);
  await Deno.chmod(`${dir}/bin/anchorfs.cjs`, 0o755).catch(() => {}); // no chmod on Windows
  await Deno.copyFile(`${ROOT}/packaging/npm/bin/install.cjs`, `${dir}/bin/install.cjs`);
  await Deno.copyFile(`${ROOT}/LICENSE`, `${dir}/LICENSE`);
  await Deno.copyFile(`${ROOT}/README.md`, `${dir}/README.md`);
  await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify(packageJson(), null, 2) + "\n");
  return dir;
}

/** Runs `npm pack` on `dir`, writing the tarball into `dest`; returns the tarball's path. */
export async function npmPack(dir: string, dest: string): Promise<string> {
  const out = await new Deno.Command(Deno.build.os === "windows" ? "npm.cmd" : "npm", {
    args: ["pack", "--json", "--pack-destination", dest],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`npm pack failed (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  }
  const [info] = JSON.parse(new TextDecoder().decode(out.stdout)) as { filename: string }[];
  if (!info) throw new Error("npm pack printed no tarball");
  return `${dest}/${info.filename}`;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: "string", default: `${ROOT}/dist` } } });
  const dir = await buildNpmPackage(`${values.out}/npm`);
  const tarball = await npmPack(dir, values.out);
  const size = (await Deno.stat(tarball)).size;
  // deno-lint-ignore no-console
  console.error(`packed ${tarball} (${(size / 1024).toFixed(0)} KB)`);
  // deno-lint-ignore no-console
  console.log(tarball);
}
