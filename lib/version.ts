// The version printed by `anchorfs --version` and sent as serverInfo.version.

/** The anchorfs version: what `anchorfs --version` prints and MCP's serverInfo.version says. */
export const VERSION = "0.1.0";
