// The flags of `anchorfs mcp`: the parseArgs table both parsers read (flags.ts, and the early
// start's scan in early_start.ts), and how the early start treats each one. Small and pure: it is
// on the path of the first reply.

import { HTTP_FLAG_SPEC } from "./http/http_flag_spec.ts";

export const MCP_FLAG_SPEC = {
  path: { type: "string" },
  "foreground-window": { type: "string" },
  "ssh-timeout": { type: "string" },
  "state-dir": { type: "string" },
  allow: { type: "string", multiple: true },
  roots: { type: "boolean" },
  "no-shell": { type: "boolean" },
  "allow-exec-files": { type: "boolean" },
  "protect-exec-files": { type: "boolean" },
  "max-message-bytes": { type: "string" },
  "max-file-bytes": { type: "string" },
  deadline: { type: "string" },
  shell: { type: "string" },
  "tail-bytes": { type: "string" },
  "passing-tail-lines": { type: "string" },
  "job-memory": { type: "string" },
  "job-pids": { type: "string" },
  ...HTTP_FLAG_SPEC,
  help: { type: "boolean", short: "h" },
} as const;

export type McpFlag = keyof typeof MCP_FLAG_SPEC;

/**
 * What each flag means for answering `initialize` before the server has loaded:
 * - "early": read by the early start itself (it changes the opening reply, or is --path, which
 *   must name a directory before anything is answered);
 * - "checked": the early start answers only once flags.ts has accepted the value (a malformed
 *   value then fails the start with no reply, so the client shows a failed connection);
 * - "late": the full parser decides first (the flag changes the reply after resolving paths, or
 *   is not stdio's).
 * A Record over every flag: a new flag cannot be added without deciding this.
 */
export const EARLY_RULES: Record<McpFlag, "early" | "checked" | "late"> = {
  path: "early",
  "no-shell": "early",
  "max-message-bytes": "early",
  "foreground-window": "checked",
  "ssh-timeout": "checked",
  "state-dir": "checked",
  "max-file-bytes": "checked",
  deadline: "checked",
  shell: "checked",
  "tail-bytes": "checked",
  "passing-tail-lines": "checked",
  "job-memory": "checked",
  "job-pids": "checked",
  // They change the instructions (what the edit tools refuse); the full parser answers.
  "allow-exec-files": "late",
  "protect-exec-files": "late",
  allow: "late",
  roots: "late",
  http: "late",
  "http-public": "late",
  "token-file": "late",
  "allow-origin": "late",
  "idle-timeout": "late",
  "unstreamed-timeout": "late",
  "max-sessions": "late",
  "max-body-bytes": "late",
  "header-timeout": "late",
  "body-timeout": "late",
  "max-connections": "late",
  help: "late",
};
