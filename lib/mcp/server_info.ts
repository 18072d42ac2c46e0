// What the server says about itself in `initialize`: name, version, capabilities, instructions.
// Kept free of the MCP SDK so the opening reply can be written before the SDK has loaded
// (early_initialize.ts); server.ts hands the same values to McpServer.

import { step, toolCallSyntax } from "../core/next_step.ts";
import { VERSION } from "../version.ts";
import { formatJobUri } from "../core/jobs/job_uri.ts";
import type { ServerOptions } from "./tool_env.ts";

export const SERVER_INSTRUCTIONS =
  "anchorfs gives you a file system and a shell. Every line is shown as N:hh|content: N is the " +
  "line number, hh a 2-hex hash of the content. Edits take these ids back and verify them, so " +
  "an edit never lands on a line that changed since you saw it; a stale id fails with fresh ids. " +
  "Use view (not cat/grep/ls/find) to read, search and list; text_editor and batch_edit to edit. " +
  "Paths may be local or ssh://host/path. A shell command still running after the foreground " +
  `window becomes a job (${formatJobUri("ID")}) and you are notified when it ends: never run it ` +
  `again or sleep; use ${toolCallSyntax(step("jobs", { action: "wait", id: "ID" }))} if you ` +
  "must block.";

/** With --no-shell: the same guidance without the shell and its jobs. */
export const SERVER_INSTRUCTIONS_NO_SHELL =
  "anchorfs gives you a file system (this server has no shell). Every line is shown as " +
  "N:hh|content: N is the line number, hh a 2-hex hash of the content. Edits take these ids " +
  "back and verify them, so an edit never lands on a line that changed since you saw it; a " +
  "stale id fails with fresh ids. Use view to read, search and list; text_editor and " +
  "batch_edit to edit. Paths may be local or ssh://host/path.";

/** The experimental capability Claude Code reads to push job endings (job_channel.ts). */
export const CHANNEL_CAPABILITY = "claude/channel";

export interface ServerInfo {
  serverInfo: { name: string; version: string };
  /**
   * As the SDK reports them once every tool and resource is registered: registering adds
   * `listChanged: true` to `tools` and `resources`, so it is given here already (and the SDK's
   * merge leaves the object as it is, key order included).
   */
  capabilities: Record<string, Record<string, unknown>>;
  instructions: string;
}

/** Said when the edit tools refuse files the user's tools run (lib/ops/edit/exec_guard.ts). */
export const EXEC_FILES_SENTENCE = " Files that tools run as commands (.git/, git hooks, .envrc, " +
  ".vscode/tasks.json and settings.json, shell start-up files) are read-only here.";

export function describeServer(
  options: Pick<ServerOptions, "shell" | "confinedTo" | "protectsExecFiles">,
): ServerInfo {
  return {
    serverInfo: { name: "anchorfs", version: VERSION },
    capabilities: options.shell
      ? {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        experimental: { [CHANNEL_CAPABILITY]: {} },
      }
      : { tools: { listChanged: true }, logging: {} },
    instructions: (options.shell ? SERVER_INSTRUCTIONS : SERVER_INSTRUCTIONS_NO_SHELL) +
      (options.confinedTo === undefined
        ? ""
        : ` File tools may only use paths inside ${options.confinedTo}; others are refused.`) +
      ((options.protectsExecFiles ?? !options.shell) ? EXEC_FILES_SENTENCE : ""),
  };
}
