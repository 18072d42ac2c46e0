// lib/core/platform: what the operating system decides (shell, process trees, state dir) and its
// path rules, as data and pure functions. The backends supply the facts.
// This file is the folder's public surface: what code outside lib/core/platform/ uses.

export {
  defaultStateDir,
  describePlatform,
  killPlan,
  maxInlineCommandBytes,
  type PlatformDescription,
  scriptExtension,
  SHELL_KINDS,
  type ShellChoice,
  shellInvocation,
  type ShellKind,
  sshLocations,
  WINDOWS_SSH_AGENT_PIPE,
} from "./platform.ts";
