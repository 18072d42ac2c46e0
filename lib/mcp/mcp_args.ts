// The flags of `anchorfs mcp` as node:util parses them from the flag table (flag_table.ts). Apart
// from flags.ts because a node: module must not be on the early start's path: the bundle's entry
// would load it before answering (scripts/bundle.ts).

import { parseArgs } from "node:util";
import { MCP_FLAG_SPEC } from "./flag_table.ts";

/**
 * The flags of `anchorfs mcp`, parsed without starting anything (node:util's errors on unknown
 * options and missing values). Values are checked by parseServeFlags; the docs test feeds this
 * every `anchorfs mcp ...` example.
 */
export function parseMcpArgs(args: string[]) {
  return parseArgs({
    args,
    options: MCP_FLAG_SPEC,
    strict: true,
    allowPositionals: false,
  }).values;
}

export type McpFlagValues = ReturnType<typeof parseMcpArgs>;
