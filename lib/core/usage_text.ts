// One wording for every usage error of the command line: node:util parseArgs's errors ("Unknown
// option '--pth'") said the way anchorfs says its own (`unknown option "--pth"`), by the human CLI
// and by `anchorfs mcp` alike. Pure text: the callers parse and render.

/** What a parse error of node:util's parseArgs carries (its `code` names the kind). */
export interface ParseArgsFailure {
  message: string;
  code?: string;
}

/**
 * A node:util parse error as one lowercase line with values in double quotes. `positionals`:
 * the command takes operands, so an unknown option may be an operand meant after `--`.
 */
export function parseArgsMessage(error: ParseArgsFailure, positionals: boolean): string {
  const message = error.message;
  // Node names an option with a short form as '-p, --path <value>': the long name is the one
  // a person typed in most cases and the one the help lists first.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const option = /--[^\s,<']+/.exec(quoted)?.[0] ?? /^-[^\s,<']+/.exec(quoted)?.[0];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) {
    return `unknown option ${JSON.stringify(option)}${
      positionals ? ' (an argument that starts with "-" goes after "--")' : ""
    }`;
  }
  if (error.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    return `unexpected argument ${JSON.stringify(quoted)}`;
  }
  if (option && /ambiguous/.test(message)) {
    return `option ${JSON.stringify(option)} got a value starting with "-"; write it as ` +
      `${option}=VALUE`;
  }
  if (option && /argument missing/.test(message)) {
    return `option ${JSON.stringify(option)} needs a value`;
  }
  if (option && /does not take an argument/.test(message)) {
    return `option ${JSON.stringify(option)} takes no value`;
  }
  const first = message.split("\n")[0]!;
  return first.charAt(0).toLowerCase() + first.slice(1);
}
