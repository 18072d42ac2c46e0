// The shell calls hints suggest for a file too big to view, written for the session's shell on a
// Windows disk (a MemoryBackend with WINDOWS_PATHS), through the ops the tools call; and the
// policy lets exactly those through (the file is too big for view), as it does for bash.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { MemoryBackend } from "../../lib/backends/memory/memory_backend.ts";
import { MemoryHost } from "../../lib/backends/memory/memory_host.ts";
import { AnchorError } from "../../lib/core/errors.ts";
import { isCall, renderGuide, toolCallSyntax } from "../../lib/core/next_step.ts";
import type { GuideStep } from "../../lib/core/next_step.ts";
import { WINDOWS_PATHS } from "../../lib/core/path/path_rules.ts";
import type { ShellKind } from "../../lib/core/platform/platform.ts";
import { Locations } from "../../lib/ops/location.ts";
import { createSession } from "../../lib/ops/session.ts";
import { viewResult } from "../../lib/ops/view.ts";
import { createReadLimits } from "../../lib/ops/read_limits.ts";
import { assertRegularFile } from "../../lib/core/read_refusals.ts";
import { logTooLarge } from "../../lib/ops/jobs/job_log_files.ts";
import { judgeShellCommand } from "../../lib/ops/shell_files.ts";
import { closeServices, createServices } from "../../lib/compose.ts";
import { runTextEditor } from "../../lib/ops/edit/text_editor.ts";
import { UndoStore } from "../../lib/ops/edit/undo_store.ts";
import { FileLocks } from "../../lib/core/file_locks.ts";

const LIMIT = 4096;

function windowsDisk(shell?: ShellKind) {
  const big = "FAIL first\n" + "filler line\n".repeat(400) + "needle here\n";
  const disk = new MemoryBackend(
    { "C:\\proj\\big copy.log": big, "C:\\proj\\small.txt": "needle\n" },
    { paths: WINDOWS_PATHS },
  );
  const locations = new Locations(new MemoryHost(disk, shell));
  const session = createSession(locations.localAt("C:\\proj"));
  const reads = createReadLimits({ maxFileBytes: LIMIT });
  const files = { locations, cwd: session.cwd, maxFileBytes: LIMIT };
  return { locations, session, reads, files };
}

function shellCommands(steps: readonly GuideStep[]): string[] {
  return steps.filter(isCall).flatMap((s) => s.tool === "shell" ? [s.args.command] : []);
}

async function hintOf(call: () => Promise<unknown>): Promise<AnchorError> {
  const e = await call().then(() => null, (e) => e);
  assert(e instanceof AnchorError, `expected an AnchorError, got ${e}`);
  return e;
}

const PS_HEAD = "Get-Content -LiteralPath 'C:\\proj\\big copy.log' -TotalCount 200";

// [session shell, FILE_TOO_LARGE's calls, a skipping search's calls]
const CASES: [ShellKind | undefined, string[], string[]][] = [
  [undefined, [ // no --shell: the Windows disk's default, cmd
    'findstr /n /l /c:"TEXT" "C:\\proj\\big copy.log"',
    `powershell -NoProfile -Command "${PS_HEAD}"`,
  ], [
    'findstr /n /l /c:"needle" "big copy.log"',
    `powershell -NoProfile -Command "Get-Content -LiteralPath 'big copy.log' -TotalCount 200"`,
  ]],
  ["powershell", [
    "Select-String -LiteralPath 'C:\\proj\\big copy.log' -Pattern 'TEXT' -SimpleMatch " +
    "-CaseSensitive | Select-Object -First 100",
    PS_HEAD,
  ], [
    "Select-String -LiteralPath 'big copy.log' -Pattern 'needle' -SimpleMatch -CaseSensitive " +
    "| Select-Object -First 100",
    "Get-Content -LiteralPath 'big copy.log' -TotalCount 200",
  ]],
  ["bash", [ // Git Bash on Windows
    "grep -n -m 100 -e TEXT 'C:\\proj\\big copy.log'",
    "sed -n '1,200p' 'C:\\proj\\big copy.log'",
  ], [
    "grep -nF -m 100 -e needle 'big copy.log'",
    "sed -n '1,200p' 'big copy.log'",
  ]],
];

for (const [shell, tooLarge, skipped] of CASES) {
  Deno.test(`a file too big to view, on a Windows disk, session shell ${shell ?? "(default)"}: hints in its dialect that its policy lets through`, async () => {
    const t = windowsDisk(shell);
    const judgeAs = shell ?? "cmd";
    const e = await hintOf(() =>
      viewResult(t.locations, t.session, { path: "big copy.log" }, { reads: t.reads })
    );
    assertEquals(e.code, "FILE_TOO_LARGE");
    // Each size once, the exact count in parentheses only where the short form rounds.
    assertStringIncludes(e.message, "is 4.7 KB (4,823 bytes);");
    assertStringIncludes(e.message, "limited to 4.0 KB (4,096 bytes), so");
    assertEquals(shellCommands(e.next), tooLarge);
    const hint = renderGuide(e.hint!, toolCallSyntax);
    assertEquals(hint.includes("head and tail work too"), judgeAs === "bash", hint);

    const search = await viewResult(t.locations, t.session, { path: ".", content: "needle" }, {
      reads: t.reads,
    });
    assertStringIncludes(renderGuide(search, toolCallSyntax), "Not searched, over the");
    assertEquals(shellCommands(search.next), skipped);

    for (const command of [...tooLarge, ...skipped]) {
      const verdict = await judgeShellCommand(command, judgeAs, t.files);
      assert(verdict.allowed, `${command}: ${verdict.allowed || verdict.message}`);
    }
    // The same reads of a file view can read stay refused: the size is what lets them through.
    for (const command of [...tooLarge, ...skipped].filter((c) => !c.startsWith("powershell "))) {
      const small = command.replaceAll("C:\\proj\\big copy.log", "small.txt")
        .replaceAll("big copy.log", "small.txt");
      assertEquals((await judgeShellCommand(small, judgeAs, t.files)).allowed, false, small);
    }
  });
}

Deno.test("NOT_A_REGULAR_FILE and LOG_TOO_LARGE name the call in the session's shell", () => {
  const fifo = { type: "other", size: 0, mode: null, mtimeMs: null, special: "fifo" } as const;
  const described = (shell?: ShellKind) => {
    try {
      assertRegularFile("C:\\proj\\pipe", fifo, "view", shell);
    } catch (e) {
      assert(e instanceof AnchorError);
      return shellCommands(e.next);
    }
    throw new Error("not refused");
  };
  assertEquals(described("cmd"), ['dir "C:\\proj\\pipe"']);
  assertEquals(described("pwsh"), ["Get-Item -LiteralPath 'C:\\proj\\pipe'"]);
  assertEquals(described(), ["ls -l 'C:\\proj\\pipe'"]);
  const log = "C:\\Users\\me\\AppData\\Local\\anchorfs\\jobs\\1-1.log";
  assertEquals(shellCommands(logTooLarge("1-1", 7e7, log, "cmd").next), [
    `findstr /n /l /c:"FAIL" "${log}"`,
  ]);
  assertEquals(shellCommands(logTooLarge("1-1", 7e7, log, "powershell").next), [
    `Select-String -LiteralPath '${log}' -Pattern 'FAIL' -SimpleMatch -CaseSensitive | ` +
    "Select-Object -First 50",
  ]);
});

Deno.test("a location's host states its shell: --shell locally, the disk's default without it, the host's over ssh", async () => {
  const local = windowsDisk().locations.localAt("C:\\proj\\a.txt");
  assertEquals(local.host.shell, "cmd");
  assertEquals(windowsDisk("pwsh").locations.localAt("C:\\proj\\a.txt").host.shell, "pwsh");
  assertEquals(new Locations(new MemoryBackend({})).localAt("/a").host.shell, "bash");
  const box = new MemoryHost({ "/srv/a.txt": "" }, "bash");
  const remote = await new Locations(windowsDisk().locations.local, {
    open: () => Promise.resolve(box),
  })
    .resolve("ssh://box/srv/a.txt", local);
  assertEquals(remote.host.shell, "bash");
  const services = createServices({ shell: "powershell" });
  try {
    assertEquals(services.locations.localAt("/x").host.shell, "powershell");
    assertEquals(services.shell, "powershell");
  } finally {
    await closeServices(services);
  }
});

Deno.test("a file too big to delete (undo keeps its bytes) is removed with the session shell's own command", async () => {
  for (
    const [shell, expected] of [
      [undefined, 'del "big copy.log"'],
      ["powershell", "Remove-Item -LiteralPath 'big copy.log'"],
      ["bash", "rm -- 'big copy.log'"],
    ] as const
  ) {
    const t = windowsDisk(shell);
    const services = {
      locations: t.locations,
      undo: new UndoStore(),
      editLocks: new FileLocks(),
      reads: t.reads,
    };
    const e = await hintOf(() =>
      runTextEditor(services, t.session, { command: "delete", path: "big copy.log" })
    );
    assertEquals(e.code, "FILE_TOO_LARGE");
    assertEquals(shellCommands(e.next), [expected], shell);
    assert((await judgeShellCommand(expected, shell ?? "cmd", t.files)).allowed, expected);
  }
});
