// The two adapters behind main.ts, loaded together once main.ts has opened stdin: the MCP server
// command (lib/mcp) and the human CLI (lib/cli). They never import each other.

export { runMcpCommand } from "./mcp/command.ts";
export { runCli } from "./cli/main.ts";
