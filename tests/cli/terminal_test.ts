// The CLI at a real terminal and at the ends of pipes: `jobs wait`'s spinner fits the terminal's
// width and follows a resize; a view's notices stay on a terminal and go to stderr otherwise; a
// write that fails (full disk, closed pipe, hung-up terminal) is one line and exit 1, never a
// stack trace. Terminals are util-linux script(1) ptys (tests/cli/_terminal.ts).

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MAIN_TS, runCliProcess, tempDir, writeTree } from "../_harness.ts";
import { eventually, jobIdOf, startJobsServer } from "../mcp/_jobs_helpers.ts";
import { needing } from "../_requires.ts";
import { textColumns } from "../../lib/core/text/column_width.ts";
import { ANCHORFS, framesOf, startInTerminal } from "./_terminal.ts";

const needs = needing("pty");
const jobsTest = needing("pty", "bash");

/** The spinner's frames in `output`: `| job ID running 1s · command`, maybe cut. */
function spinnerFrames(output: string): string[] {
  return framesOf(output).filter((f) => /^[|/\\-] job /.test(f));
}

Deno.test(jobsTest(
  "jobs wait's spinner is cut to a 40-column terminal and redrawn to the new width on resize",
  async () => {
    await using s = await startJobsServer("v1", { window: 0.2 });
    // A command far wider than the terminal: an uncut frame would wrap at every redraw.
    const r = await s.server.call("shell", {
      command: `: ${"long-argument-".repeat(6)}; until [ -f release ]; do sleep 0.05; done`,
    });
    const id = jobIdOf(r.raw);
    await using term = startInTerminal(
      `${ANCHORFS} jobs wait ${id} --state-dir '${s.stateDir}' > wait.out & ` +
        "while [ ! -e resize ]; do sleep 0.05; done; stty cols 30; echo; echo RESIZED; wait $!",
      { cwd: s.dir, columns: 40 },
    );
    await term.until((o) => spinnerFrames(o).length >= 3, "three spinner frames");
    await Deno.writeTextFile(`${s.dir}/resize`, "");
    const after = (o: string) => o.includes("RESIZED") ? spinnerFrames(o.split("RESIZED")[1]!) : [];
    await term.until((o) => after(o).some((f) => textColumns(f) <= 29), "a frame at 30 columns");
    await Deno.writeTextFile(`${s.dir}/release`, "");
    assertEquals((await term.status).code, 0);

    const output = term.output();
    const before = spinnerFrames(output.split("RESIZED")[0]!);
    for (const f of before) assert(textColumns(f) <= 39, `frame wider than 39 columns: ${f}`);
    assert(before.some((f) => f.endsWith("…")), `no frame was cut: ${JSON.stringify(before)}`);
    // A frame drawn the instant stty ran may still have the old width; every later one is cut.
    for (const f of after(output).slice(1)) {
      assert(textColumns(f) <= 29, `frame wider than 29 columns after the resize: ${f}`);
    }
    assertStringIncludes(output, `[job ${id}: succeeded`);
  },
));

Deno.test(
  needs(
    "a view's notices stay after the lines on a terminal and go to stderr through a pipe",
    async () => {
      await using dir = await tempDir();
      const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n");
      await writeTree(dir.path, { "big.txt": `${lines}\n`, "crlf.txt": "a\r\nb\r\n" });
      {
        await using term = startInTerminal(`${ANCHORFS} view big.txt`, {
          cwd: dir.path,
          columns: 200,
        });
        assertEquals((await term.status).code, 0);
        assertStringIncludes(term.output(), "2000:");
        assertStringIncludes(term.output(), "[Showing lines 1-2000 of 5,000 lines");
      }
      const piped = await runCliProcess(["view", "big.txt"], { cwd: dir.path });
      assertEquals(piped.code, 0);
      assertEquals(piped.stdout.split("\n").length - 1, 2000, "only the lines on stdout");
      assert(/\n2000:[0-9a-f]{2}\|line 2000\n$/.test(piped.stdout), piped.stdout.slice(-40));
      assertStringIncludes(piped.stderr, "[Showing lines 1-2000 of 5,000 lines");
      assertStringIncludes(piped.stderr, "anchorfs view big.txt --start 2001 --end 4000");
      const crlf = await runCliProcess(["view", "crlf.txt"], { cwd: dir.path });
      assert(/^1:[0-9a-f]{2}\|a\n2:[0-9a-f]{2}\|b\n$/.test(crlf.stdout), crlf.stdout);
      assertStringIncludes(crlf.stderr, "CRLF line endings");
    },
  ),
);

Deno.test(needs("view --all prints the whole file, within --max-file-bytes", async () => {
  await using dir = await tempDir();
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n");
  await writeTree(dir.path, { "big.txt": `${lines}\n` });
  const all = await runCliProcess(["view", "big.txt", "--all"], { cwd: dir.path });
  assertEquals(all.code, 0, all.stderr);
  assertEquals(all.stdout.split("\n").length - 1, 5000);
  assertEquals(all.stderr, "");
  const from = await runCliProcess(["view", "big.txt", "--all", "--start", "4001"], {
    cwd: dir.path,
  });
  assertEquals(from.stdout.split("\n").length - 1, 1000);
  assertStringIncludes(from.stderr, "[Showing lines 4001-5000 of 5,000 lines.]");
  const capped = await runCliProcess(["--max-file-bytes", "10K", "view", "big.txt", "--all"], {
    cwd: dir.path,
  });
  assertEquals(capped.code, 1);
  assertStringIncludes(capped.stderr, "error: ");
  assertStringIncludes(capped.stderr, "big.txt");
  assertEquals(capped.stdout, "");
}));

/** Runs `sh -c script` with the CLI as ANCHORFS; its exit code and stderr. */
async function sh(script: string, cwd: string): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    cwd,
    env: { NO_COLOR: "1", DENO_BIN: Deno.execPath(), ANCHORFS_MAIN: MAIN_TS },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const FULL = "anchorfs: write error: No space left on device\n";

Deno.test(
  needs(
    "a full disk on stdout or stderr is one line and exit 1 (2 for a search), no stack trace",
    async () => {
      await using dir = await tempDir();
      await writeTree(dir.path, { "a.txt": "hello\n" });
      const cases: [string, number][] = [
        [`${ANCHORFS} view a.txt > /dev/full`, 1],
        [`${ANCHORFS} view . --content hello > /dev/full`, 2],
        [`${ANCHORFS} --help > /dev/full`, 1],
        [`${ANCHORFS} jobs help > /dev/full`, 1],
        [`${ANCHORFS} mcp --help > /dev/full`, 1],
        [`${ANCHORFS} workdir > /dev/full`, 1],
      ];
      for (const [script, code] of cases) {
        const r = await sh(script, dir.path);
        assertEquals([r.code, r.stderr], [code, FULL], script);
      }
      // stderr full: the error cannot be told, the exit code still says it.
      const err = await sh(`${ANCHORFS} view nope.txt 2> /dev/full`, dir.path);
      assertEquals(err.code, 1);
    },
  ),
);

Deno.test(
  needs("a closed pipe on stdout is one line and exit 1, as is a hung-up terminal", async () => {
    await using dir = await tempDir();
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1}`).join("\n");
    await writeTree(dir.path, { "big.txt": `${lines}\n` });
    // More than a pipe holds: the writes after head exits meet a closed pipe.
    const head = await sh(`${ANCHORFS} view big.txt --all | head -1; exit "$?"`, dir.path);
    assertEquals(head.stderr, "anchorfs: write error: Broken pipe\n");
    // The reader gone before the first write.
    for (
      const [args, code] of [[["view", "big.txt"], 1], [["view", ".", "--content", "line"], 2]]
    ) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", MAIN_TS, ...args as string[]],
        cwd: dir.path,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      await child.stdout.cancel();
      const out = await child.output();
      assertEquals(
        [out.code, new TextDecoder().decode(out.stderr)],
        [code, "anchorfs: write error: Broken pipe\n"],
        (args as string[]).join(" "),
      );
    }
    // EIO: the terminal hangs up (script killed) while the shell waits; SIGHUP is ignored.
    await using term = startInTerminal(
      "trap '' HUP; echo READY; while [ ! -e go ]; do sleep 0.05; done; " +
        `${ANCHORFS} view big.txt 2> err.txt; echo "$?" > code.txt`,
      { cwd: dir.path, columns: 80 },
    );
    await term.until((o) => o.includes("READY"), "the shell's READY");
    term.killTerminal();
    await term.status;
    await Deno.writeTextFile(`${dir.path}/go`, "");
    let ended = "";
    const written = () => {
      try {
        ended = Deno.readTextFileSync(`${dir.path}/code.txt`);
      } catch {
        // not written yet
      }
      return ended.endsWith("\n");
    };
    assert(await eventually(written, 60_000), "the view never ended");
    assertEquals(ended, "1\n");
    assertEquals(
      Deno.readTextFileSync(`${dir.path}/err.txt`),
      "anchorfs: write error: Input/output error\n",
    );
  }),
);
