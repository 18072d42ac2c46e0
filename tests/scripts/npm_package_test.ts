// The npm package as a user gets it: packed with `npm pack`, installed globally into a temporary
// prefix, and run through the installed `anchorfs` command (the launcher running the bundle with
// the `deno` dependency's binary). npm fetches `deno` from the registry or its local cache.
// Each module loaded on first use is a chunk file of the package: the calls that need them run.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assertEquals, assertStringIncludes } from "../_assert.ts";
import { REPO_ROOT, serverEnv, tempDir, writeTree } from "../_harness.ts";
import { buildNpmPackage, npmPack, packageJson } from "../../scripts/release/npm_pack.ts";
import { CORE_FILE } from "../../scripts/release/bundle.ts";
import { LAZY_MODULES, lazyPlaces, reachableFiles, startFiles } from "./_bundle_graph.ts";
import { VERSION } from "../../lib/version.ts";

const WINDOWS = Deno.build.os === "windows";
const NPM = WINDOWS ? "npm.cmd" : "npm";

function onPath(command: string): boolean {
  const sep = WINDOWS ? ";" : ":";
  return (Deno.env.get("PATH") ?? "").split(sep).some((dir) => {
    try {
      return Deno.statSync(`${dir}/${command}`).isFile;
    } catch {
      return false;
    }
  });
}

const dec = new TextDecoder();

async function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("package.json names the launcher as the bin and pins the deno dependency", () => {
  const pkg = packageJson();
  assertEquals(pkg.name, "anchorfs");
  assertEquals(pkg.version, VERSION);
  assertEquals(pkg.license, "MIT");
  assertEquals(pkg.bin, { anchorfs: "bin/anchorfs.cjs" });
  assertEquals(pkg.dependencies, { deno: "2.9.6" });
  assertEquals(pkg.scripts, { postinstall: "node bin/install.cjs" });
});

Deno.test({
  name:
    "the packed npm package installs with npm -g and serves --version, the CLI and MCP calls that run each chunk",
  ignore: !onPath(NPM) && (() => {
    // deno-lint-ignore no-console
    console.error("skipped: npm is not on PATH, so the npm package cannot be packed or installed");
    return true;
  })(),
  async fn() {
    await using work = await tempDir("anchorfs-npm-");
    const pkgDir = await buildNpmPackage(`${work.path}/package`);
    const tarball = await npmPack(pkgDir, work.path);
    assertStringIncludes(tarball, `anchorfs-${VERSION}.tgz`);
    await assertDocumentedSize(tarball);

    const prefix = `${work.path}/prefix`;
    const install = await run(NPM, [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      tarball,
    ], work.path);
    assertEquals(install.code, 0, install.stderr);
    // docs/install.md: npm 11's only remark is on the postinstalls: the deno dependency's (not
    // needed) and ours (it runs all the same).
    for (const line of install.stderr.split("\n").filter((l) => l.startsWith("npm warn"))) {
      assertEquals(line.startsWith("npm warn install-scripts"), true, install.stderr);
    }
    if (install.stderr.includes("allowScripts")) {
      assertStringIncludes(install.stderr, "deno@2.9.6 (postinstall");
      assertStringIncludes(
        install.stderr,
        `anchorfs@${VERSION} (postinstall: node bin/install.cjs)`,
      );
    }
    const bin = WINDOWS ? `${prefix}/anchorfs.cmd` : `${prefix}/bin/anchorfs`;
    const installed = WINDOWS
      ? `${prefix}/node_modules/anchorfs`
      : `${prefix}/lib/node_modules/anchorfs`;
    await assertChunksInstalled(pkgDir, installed);
    if (!WINDOWS) {
      // The postinstall made the command a script that execs Deno; the Node launcher is beside it.
      const script = await Deno.readTextFile(`${installed}/bin/anchorfs.cjs`);
      assertEquals(script.startsWith("#!/bin/sh\n"), true, script.slice(0, 200));
      assertStringIncludes(script, `exec "$deno" 'run' '-A'`);
      assertEquals(
        await Deno.readTextFile(`${installed}/bin/launch.cjs`),
        await Deno.readTextFile(`${pkgDir}/bin/anchorfs.cjs`),
      );
      // Without its runtime the script hands over to the launcher, which says what to do.
      const gone = await run(bin, ["--version"], work.path, { ANCHORFS_DENO: "/no/such/deno" });
      assertEquals(gone.code, 3, gone.stderr);
      assertStringIncludes(gone.stderr, "error: anchorfs could not start /no/such/deno");
    }

    const version = await run(bin, ["--version"], work.path);
    assertEquals(version, { code: 0, stdout: `anchorfs ${VERSION}\n`, stderr: "" });

    const project = `${work.path}/project`;
    await writeTree(project, { "hello.txt": "alpha\nbeta\n" });
    const view = await run(bin, ["view", "hello.txt"], project);
    assertEquals(view.code, 0, view.stderr);
    assertStringIncludes(view.stdout, "|alpha\n");
    assertStringIncludes(view.stdout, "|beta\n");
    // The outline reads the wasm files the package ships (tree-sitter/), not an npm cache.
    await writeTree(project, { "jobs.rs": "impl Jobs {\n    fn start(&self) {}\n}\n" });
    const outline = await run(bin, ["view", "jobs.rs", "--outline"], project);
    assertEquals(outline.code, 0, outline.stderr);
    assertStringIncludes(outline.stdout, " method Jobs.start 2 (&self)");

    // An RE2 regex (case folding with a repeat) over more files than one scanner batch: matched
    // on the search workers, which import the package's re2js file (else they say they cannot).
    const many: Record<string, string> = {};
    for (let i = 0; i < 700; i++) many[`many/f${i}.txt`] = i === 7 ? "the NEEDLE 7\n" : `x ${i}\n`;
    await writeTree(project, many);
    const re2 = await run(
      bin,
      ["view", "many", "--content", "(?i)ne+dle \\d+", "--regex"],
      project,
    );
    assertEquals(re2.code, 0, re2.stderr);
    assertStringIncludes(re2.stdout, "|the NEEDLE 7");
    assertEquals(re2.stderr, "");

    // A usage error's exit code comes through the launcher unchanged.
    const usage = await run(bin, ["no-such-command"], project);
    assertEquals(usage.code, 2);

    const transport = new StdioClientTransport({
      command: bin,
      args: ["mcp", "--path", project],
      env: serverEnv(),
      cwd: project,
      stderr: "pipe",
    });
    const client = new Client({ name: "anchorfs-npm-test", version: "1.0.0" }, {
      capabilities: {},
    });
    try {
      await client.connect(transport);
      assertEquals(client.getServerVersion()?.name, "anchorfs");
      assertEquals(client.getServerVersion()?.version, VERSION);
      const result = await client.callTool({ name: "view", arguments: { path: "hello.txt" } });
      // deno-lint-ignore no-explicit-any
      const text = (result.content as any[]).map((c) => c.text).join("\n");
      assertStringIncludes(text, "|alpha");
      // An outline over MCP: the server starts the outline worker from the package's own file.
      const outlined = await client.callTool({
        name: "view",
        arguments: { path: "jobs.rs", outline: true },
      });
      // deno-lint-ignore no-explicit-any
      const rows = (outlined.content as any[]).map((c) => c.text).join("\n");
      assertEquals(outlined.isError === true, false, rows);
      assertStringIncludes(rows, "jobs.rs: Rust, 3 lines, 2 declarations.");
      assertStringIncludes(rows, " method Jobs.start 2 (&self)");
      // A listing (the tree ops' chunk).
      const listed = await client.callTool({ name: "view", arguments: { path: "." } });
      // deno-lint-ignore no-explicit-any
      const listing = (listed.content as any[]).map((c) => c.text).join("\n");
      assertEquals(listed.isError === true, false, listing);
      assertStringIncludes(listing, "jobs.rs");
      assertStringIncludes(listing, "many/");
      // A search over more files than one scanner batch (the scanner's chunk and its workers).
      const search = await client.callTool({
        name: "view",
        arguments: { path: "many", content: "NEEDLE" },
      });
      // deno-lint-ignore no-explicit-any
      const found = (search.content as any[]).map((c) => c.text).join("\n");
      assertEquals(search.isError === true, false, found);
      assertStringIncludes(found, "1 matching line in 1 file");
      assertStringIncludes(found, "|the NEEDLE 7");
      // An edit (the edit tools' and the re-view diff's chunks).
      const edit = await client.callTool({
        name: "text_editor",
        arguments: {
          command: "str_replace",
          path: "hello.txt",
          old_text: "beta",
          new_text: "gamma",
        },
      });
      // deno-lint-ignore no-explicit-any
      const edited = (edit.content as any[]).map((c) => c.text).join("\n");
      assertEquals(edit.isError === true, false, edited);
      assertEquals(await Deno.readTextFile(`${project}/hello.txt`), "alpha\ngamma\n");
      // An ssh:// path (ssh2's chunk and the ssh backend's): ssh2's own refusal comes back.
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = listener.addr.port;
      listener.close();
      const remote = await client.callTool({
        name: "view",
        arguments: { path: `ssh://127.0.0.1:${port}/tmp/x.txt` },
      });
      // deno-lint-ignore no-explicit-any
      const refused = (remote.content as any[]).map((c) => c.text).join("\n");
      assertEquals(remote.isError, true, refused);
      assertStringIncludes(refused, "the connection was refused");
    } finally {
      await client.close();
    }

    if (!WINDOWS) await checkSignalForwarding(bin, installed, project);
  },
});

/**
 * The installed package holds every file of the built one (each chunk: their names change with
 * the code, so package.json lists their folder), and its core file loads none of the modules
 * only some calls need: each is a chunk the core file can load.
 */
async function assertChunksInstalled(built: string, installed: string) {
  const core = CORE_FILE.split("/");
  const dir = [installed, ...core.slice(0, -1)].join("/");
  const coreName = core.at(-1)!;
  const builtFiles = await reachableFiles([built, ...core.slice(0, -1)].join("/"), coreName);
  assertEquals(await reachableFiles(dir, coreName), builtFiles);
  const atStart = await lazyPlaces(dir, await startFiles(dir, coreName));
  const reachable = await lazyPlaces(dir, builtFiles);
  for (const [what] of LAZY_MODULES) {
    assertEquals(atStart[what], [], `${what} loads with the installed core file`);
    assertEquals(reachable[what]!.length > 0, true, `no installed chunk holds ${what}`);
  }
}

/** docs/install.md states the packed size ("downloads the 0.6 MB package") within 0.1 MB. */
async function assertDocumentedSize(tarball: string) {
  const install = await Deno.readTextFile(`${REPO_ROOT}/docs/install.md`);
  const stated = Number(/downloads the ([\d.]+) MB package/.exec(install)?.[1]);
  const measured = (await Deno.stat(tarball)).size / 1e6;
  assertEquals(
    Math.abs(stated - measured) < 0.1,
    true,
    `docs/install.md says ${stated} MB, the package is ${measured.toFixed(2)} MB`,
  );
}

/**
 * The installed command serves MCP as the Deno process itself (the postinstall's script execs it:
 * no Node process beside the server) and exits 0 on SIGTERM; the Node launcher it keeps as
 * launch.cjs passes SIGTERM on to its server child, which exits, and the launcher follows.
 */
async function checkSignalForwarding(bin: string, installed: string, project: string) {
  const command = await startAndInitialize([bin], project);
  // ps's command name: the executable's (Linux) or its path (macOS).
  const exe = (await run("ps", ["-o", "comm=", "-p", String(command.pid)], project)).stdout.trim();
  assertEquals(exe.split("/").at(-1), "deno", `the command runs ${exe}, not Deno itself`);
  command.kill("SIGTERM");
  assertEquals((await command.status).code, 0);
  await command.done();

  const launcher = await startAndInitialize(["node", `${installed}/bin/launch.cjs`], project);
  const children = await run("pgrep", ["-P", String(launcher.pid)], project);
  const serverPid = Number(children.stdout.trim().split("\n")[0]);
  assertEquals(Number.isInteger(serverPid) && serverPid > 0, true, children.stdout);
  launcher.kill("SIGTERM");
  // The server ends its jobs and exits 0 on SIGTERM; the launcher passes that code on.
  assertEquals((await launcher.status).code, 0);
  const alive = await run("ps", ["-o", "stat=", "-p", String(serverPid)], project);
  assertEquals(alive.stdout.trim() === "" || alive.stdout.trim().startsWith("Z"), true);
  await launcher.done();
}

/** `argv` started as an MCP server in `project`, its `initialize` answered. */
async function startAndInitialize(argv: string[], project: string) {
  const child = new Deno.Command(argv[0]!, {
    args: [...argv.slice(1), "mcp", "--path", project],
    cwd: project,
    env: serverEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }) + "\n",
  ));
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value);
  }
  assertStringIncludes(text, '"serverInfo"');
  return {
    pid: child.pid,
    status: child.status,
    kill: (signal: Deno.Signal) => child.kill(signal),
    done: async () => {
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      await writer.close().catch(() => {});
    },
  };
}
