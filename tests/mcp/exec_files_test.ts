// A read/edit-only server (--no-shell --allow DIR) cannot make the user's own tools run a
// command: through the real server, every edit tool refuses .git/config, hooks (also where a
// worktree, a separate git dir or core.hooksPath puts them), .envrc, .vscode/tasks.json and the
// rest of lib/core/path/exec_files.ts, and `git status` afterwards runs nothing planted.
// --allow-exec-files lifts it; --protect-exec-files turns it on with the shell too.

import { assert, assertEquals, assertStringIncludes } from "../_assert.ts";
import { startServer, tempDir, type TestServer, writeTree } from "../_harness.ts";
import { needing } from "../_requires.ts";

const needsPosixFs = needing("posix-fs");
const PROTECTED = "does not write files that the user's own tools run as commands";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "init.defaultBranch=main", ...args],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function refused(server: TestServer, tool: string, args: Record<string, unknown>) {
  const out = await server.call(tool, args);
  assert(out.isError, `${tool} ${JSON.stringify(args)}: ${out.text}`);
  assertStringIncludes(out.text, PROTECTED);
  assertStringIncludes(out.text, "--allow-exec-files");
  return out.text;
}

Deno.test(needsPosixFs(
  "--no-shell: .git/config cannot be edited to plant core.fsmonitor, and git status runs nothing",
  async () => {
    await using dir = await tempDir();
    const repo = `${dir.path}/repo`;
    await Deno.mkdir(repo);
    await git(repo, "init", "-q");
    await writeTree(repo, { "a.txt": "alpha\n" });
    const marker = `${dir.path}/MARKER`;
    await using server = await startServer({
      client: "v2",
      args: ["--path", repo, "--allow", repo, "--no-shell"],
    });
    const config = await Deno.readTextFile(`${repo}/.git/config`);
    const view = await server.call("view", { path: ".git/config", start: 1, end: 1 });
    const id = /^(\d+:[0-9a-f]{2})\|/m.exec(view.text)![1]!;
    const text = await refused(server, "batch_edit", {
      path: ".git/config",
      operations: [{
        op: "insert",
        anchor: id,
        content: `\tfsmonitor = "touch ${marker}; false"\n`,
      }],
    });
    assertStringIncludes(text, "core.fsmonitor on every `git status`");
    await refused(server, "text_editor", {
      command: "str_replace",
      path: ".git/config",
      old_text: "[core]",
      new_text: `[core]\n\tfsmonitor = "touch ${marker}; false"`,
    });
    await refused(server, "text_editor", {
      command: "create",
      path: ".git/hooks/pre-commit",
      file_text: `#!/bin/sh\ntouch ${marker}\n`,
    });
    await refused(server, "text_editor", { command: "delete", path: ".git/config" });
    assertStringIncludes(
      server.client.getInstructions() ?? "",
      "Files that tools run as commands (.git/, git hooks",
    );
    await refused(server, "extract_lines", {
      from_path: "a.txt",
      start: 1,
      to_path: ".git/info/attributes",
      position: -1,
    });
    assertEquals(await Deno.readTextFile(`${repo}/.git/config`), config);
    await git(repo, "status", "--short");
    assertEquals(await Deno.stat(marker).catch(() => null), null);
    // Ordinary files are edited as always.
    const ok = await server.call("text_editor", {
      command: "str_replace",
      path: "a.txt",
      old_text: "alpha",
      new_text: "ALPHA",
    });
    assertEquals(ok.isError, false, ok.text);
  },
));

Deno.test(
  needsPosixFs("--no-shell: the conventions by name, and a symlink to one of them", async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, {
      "a.txt": "a\n",
      ".vscode/settings.json": "{}\n",
      "home/.bashrc": "# rc\n",
    });
    await Deno.symlink(".vscode/settings.json", `${dir.path}/innocent.json`);
    await using server = await startServer({
      client: "v1",
      args: ["--path", dir.path, "--no-shell"],
    });
    for (const path of [".envrc", ".vscode/tasks.json", ".husky/pre-commit", "sub/.git/config"]) {
      await refused(server, "text_editor", { command: "create", path, file_text: "x\n" });
    }
    for (const path of ["innocent.json", "home/.bashrc", ".vscode/settings.json"]) {
      const text = await refused(server, "text_editor", {
        command: "str_replace",
        path,
        old_text: path.endsWith("rc") ? "# rc" : "{}",
        new_text: "changed",
      });
      assertStringIncludes(text, path.endsWith("rc") ? "shell runs it" : "VS Code settings");
    }
    assertEquals(await Deno.readTextFile(`${dir.path}/.vscode/settings.json`), "{}\n");
  }),
);

Deno.test(needsPosixFs(
  "--no-shell: hooks where a worktree, a separate git dir or core.hooksPath put them, and a planted bare repository",
  async () => {
    await using dir = await tempDir();
    const t = dir.path;
    const repo = `${t}/repo`;
    await Deno.mkdir(repo);
    await git(repo, "init", "-q", `--separate-git-dir=${t}/gitdir`);
    await writeTree(repo, { "a.txt": "a\n" });
    await git(repo, "add", "a.txt");
    await git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    await git(repo, "worktree", "add", "-q", `${t}/wt`);
    await git(repo, "config", "core.hooksPath", ".githooks");
    await using server = await startServer({ client: "v2", args: ["--path", t, "--no-shell"] });
    await refused(server, "text_editor", {
      command: "str_replace",
      path: "gitdir/config",
      old_text: "[core]",
      new_text: "[core]\n\tpager = touch MARKER",
    });
    await refused(server, "text_editor", {
      command: "create",
      path: "gitdir/hooks/post-checkout",
      file_text: "x\n",
    });
    // The worktree's .git is a file naming its git dir: it may not be pointed elsewhere.
    await refused(server, "text_editor", {
      command: "str_replace",
      path: "wt/.git",
      old_text: "gitdir:",
      new_text: "gitdir: /tmp/evil #",
    });
    const hooks = await refused(server, "text_editor", {
      command: "create",
      path: "repo/.githooks/pre-commit",
      file_text: "x\n",
    });
    assertStringIncludes(hooks, "core.hooksPath of the repository");
    // A bare repository planted in a project: HEAD, then the config git would read.
    const head = await server.call("text_editor", {
      command: "create",
      path: "repo/plant/HEAD",
      file_text: "ref: refs/heads/main\n",
    });
    assertEquals(head.isError, false, head.text);
    const planted = await refused(server, "text_editor", {
      command: "create",
      path: "repo/plant/config",
      file_text: "[core]\n\tfsmonitor = touch MARKER\n",
    });
    assertStringIncludes(planted, "git takes");
  },
));

Deno.test(needsPosixFs(
  "--allow-exec-files lifts the guard; --protect-exec-files sets it with the shell",
  async () => {
    await using dir = await tempDir();
    await writeTree(dir.path, { "a.txt": "a\n" });
    {
      await using server = await startServer({
        client: "v1",
        args: ["--path", dir.path, "--no-shell", "--allow-exec-files"],
      });
      const out = await server.call("text_editor", {
        command: "create",
        path: ".envrc",
        file_text: "export A=1\n",
      });
      assertEquals(out.isError, false, out.text);
      assertEquals(server.client.getInstructions()?.includes("are read-only here"), false);
    }
    {
      await using server = await startServer({
        client: "v1",
        args: ["--path", dir.path, "--protect-exec-files"],
      });
      const text = await refused(server, "text_editor", {
        command: "create",
        path: ".vscode/tasks.json",
        file_text: "{}\n",
      });
      assertStringIncludes(text, "(--protect-exec-files)");
      assertStringIncludes(server.client.getInstructions() ?? "", "are read-only here");
    }
    {
      // The default with the shell: edits as before (the shell could write them anyway).
      await using server = await startServer({ client: "v1", args: ["--path", dir.path] });
      const out = await server.call("text_editor", {
        command: "create",
        path: ".vscode/tasks.json",
        file_text: "{}\n",
      });
      assertEquals(out.isError, false, out.text);
    }
  },
));
