// The tool list: every registrar here is called for each server instance. Adding a tool is one
// import and one entry; a tool file owns its schema, description and handler.

import type { ToolRegistrar } from "../tool_env.ts";
import { registerWorkdirTool } from "./workdir.ts";
import { registerTextEditorTool } from "./text_editor.ts";
import { registerBatchEditTool } from "./batch_edit.ts";
import { registerExtractLinesTool } from "./extract_lines.ts";
import { registerViewTool } from "./view.ts";
import { registerShellTool } from "./shell.ts";
import { registerJobsTool } from "./jobs.ts";

/** The file tools: confined by --allow / --roots. */
export const FILE_TOOL_REGISTRARS: readonly ToolRegistrar[] = [
  registerViewTool,
  registerWorkdirTool,
  registerTextEditorTool,
  registerBatchEditTool,
  registerExtractLinesTool,
];

/** The shell and its jobs: not confinable by path checks; removed by --no-shell. */
export const SHELL_TOOL_REGISTRARS: readonly ToolRegistrar[] = [
  registerShellTool,
  registerJobsTool,
];

export const TOOL_REGISTRARS: readonly ToolRegistrar[] = [
  ...FILE_TOOL_REGISTRARS,
  ...SHELL_TOOL_REGISTRARS,
];
