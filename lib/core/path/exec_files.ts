// Files that the user's own tools run as commands by convention, without the user asking to run
// anything from them: an edit of one can make `git status`, `cd` or opening the folder run a
// command, so a read/edit-only server (--no-shell) refuses to write them. The table is the whole
// policy by name; lib/ops/edit/exec_guard.ts adds what needs the disk (git directories found by
// their content, core.hooksPath). docs/security.md lists the same entries. Pure.

interface ExecFileRule {
  /**
   * The last components of the path that name the file (compared without case: a folding disk
   * opens `.GIT/config` as `.git/config`); with `within`, the first of them names a directory and
   * the rule covers everything inside it (and the name itself, as a file or directory).
   */
  readonly names: readonly string[];
  readonly within?: boolean;
  /** What runs it, and when: the refusal quotes it. */
  readonly reason: string;
}

const SHELL_STARTUP = "the user's shell runs it at start-up (every new terminal or login)";

// Exported for tests.
/** The conventions, in the order docs/security.md lists them. */
export const EXEC_FILE_RULES: readonly ExecFileRule[] = [
  {
    names: [".git"],
    within: true,
    reason: "git's own directory (or a .git file naming one): its config names commands git " +
      "runs on everyday commands (core.fsmonitor on every `git status`, core.pager, " +
      "core.sshCommand, aliases, filters), and its hooks run on commit, checkout, merge and push",
  },
  {
    names: [".husky"],
    within: true,
    reason: "husky's git hooks: git runs them on commit and push",
  },
  {
    names: [".pre-commit-config.yaml"],
    reason: "pre-commit runs the commands it lists on `git commit` (a `repo: local` hook runs " +
      "any command)",
  },
  { names: ["lefthook.yml"], reason: "lefthook runs the commands it lists as git hooks" },
  { names: [".lefthook.yml"], reason: "lefthook runs the commands it lists as git hooks" },
  { names: ["lefthook-local.yml"], reason: "lefthook runs the commands it lists as git hooks" },
  {
    names: [".envrc"],
    reason: "direnv runs it in the user's shell whenever they enter the folder",
  },
  {
    names: [".vscode", "tasks.json"],
    reason: 'VS Code runs its tasks marked `"runOn": "folderOpen"` when the folder is opened',
  },
  {
    names: [".vscode", "settings.json"],
    reason: "VS Code settings name programs the editor runs by itself (git.path, terminal " +
      "profiles and their environment, interpreter and formatter paths)",
  },
  {
    names: [".gitconfig"],
    reason: "git reads ~/.gitconfig like a repository's config (core.fsmonitor, aliases, ...)",
  },
  {
    names: [".config", "git", "config"],
    reason: "git reads it like ~/.gitconfig (core.fsmonitor, aliases, ...)",
  },
  { names: [".bashrc"], reason: SHELL_STARTUP },
  { names: [".bash_profile"], reason: SHELL_STARTUP },
  { names: [".bash_login"], reason: SHELL_STARTUP },
  { names: [".profile"], reason: SHELL_STARTUP },
  { names: [".zshenv"], reason: SHELL_STARTUP },
  { names: [".zprofile"], reason: SHELL_STARTUP },
  { names: [".zshrc"], reason: SHELL_STARTUP },
  { names: [".zlogin"], reason: SHELL_STARTUP },
  { names: [".config", "fish", "config.fish"], reason: SHELL_STARTUP },
  {
    names: [".ssh"],
    within: true,
    reason: "ssh runs the ProxyCommand and LocalCommand of ~/.ssh/config, and authorized_keys " +
      "decides who may log in",
  },
];

/** The rule that covers a path given as its components (root first), or undefined. */
export function execFileRule(components: readonly string[]): ExecFileRule | undefined {
  const folded = components.map((c) => c.toLowerCase());
  for (const rule of EXEC_FILE_RULES) {
    const names = rule.names.map((n) => n.toLowerCase());
    if (rule.within) {
      // The directory's name anywhere in the path, with the rest of the rule's names after it.
      for (let i = 0; i + names.length <= folded.length; i++) {
        if (names.every((n, k) => folded[i + k] === n)) return rule;
      }
    } else if (
      folded.length >= names.length &&
      names.every((n, k) => folded[folded.length - names.length + k] === n)
    ) return rule;
  }
  return undefined;
}
