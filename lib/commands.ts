// The two adapters behind main.ts, loaded together once main.ts has opened stdin: the MCP server
// command (lib/mcp) and the human CLI (lib/cli). They never import each other.

export { runMcpCommand } from "./mcp/command.ts";
export { runCli } from "./cli/main.ts";
// How a person reads a suggested call: `anchorfs mcp` writes its start-up errors with it.
export { cliStepSyntax } from "./cli/step_command.ts";
