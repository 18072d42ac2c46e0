// The version printed by `anchorfs --version` and sent as serverInfo.version.
export const VERSION = "0.1.0";
