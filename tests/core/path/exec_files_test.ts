// exec_files.ts (pure): the rules that name files which run code (CI configs, hooks, build files),
// by name and case folded, each saying what runs it.

import { assert, assertEquals } from "../../_assert.ts";
import { EXEC_FILE_RULES, execFileRule } from "../../../lib/core/path/exec_files.ts";

const parts = (path: string) => path.split("/").filter((c) => c !== "");

Deno.test("execFileRule covers the conventions by name, case folded, and nothing like them", () => {
  const covered = [
    "/p/.git/config",
    "/p/.git/hooks/pre-commit",
    "/p/.git",
    "/p/sub/.GIT/CONFIG",
    "/p/.husky/pre-push",
    "/p/.envrc",
    "/p/.vscode/tasks.json",
    "/p/.vscode/settings.json",
    "/home/me/.bashrc",
    "/home/me/.config/git/config",
    "/home/me/.config/fish/config.fish",
    "/home/me/.ssh/authorized_keys",
    "/p/.pre-commit-config.yaml",
  ];
  for (const path of covered) assert(execFileRule(parts(path)), path);
  const free = [
    "/p/src/app.ts",
    "/p/.gitignore",
    "/p/.github/workflows/ci.yml",
    "/p/.vscode/extensions.json",
    "/p/git/config",
    "/p/tasks.json",
    "/p/.envrc.example",
    "/p/.gitattributes",
  ];
  for (const path of free) assertEquals(execFileRule(parts(path)), undefined, path);
});

Deno.test("every rule says what runs the file", () => {
  for (const rule of EXEC_FILE_RULES) assert(rule.reason.length > 20, rule.names.join("/"));
});
