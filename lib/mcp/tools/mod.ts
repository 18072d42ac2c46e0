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

export const TOOL_REGISTRARS: readonly ToolRegistrar[] = [
  registerViewTool,
  registerWorkdirTool,
  registerTextEditorTool,
  registerBatchEditTool,
  registerExtractLinesTool,
  registerShellTool,
  registerJobsTool,
];
