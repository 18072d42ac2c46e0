// Shell policy: judges a command line before anything runs and refuses shell misuse (cat,
// grep, find, sed, bare sleep, never-ending commands) with the exact replacement call.
// Pure: parses the text, spawns nothing. (Placeholder: allows everything until the rules land.)

export type PolicyVerdict =
  | { allowed: true }
  | {
    allowed: false;
    /** Stable rule id, e.g. "read_file", "search_text", "parse_error". */
    rule: string;
    /** The whole message for the model: rule + replacement tool, worked examples, what is allowed. */
    message: string;
    /** The simple command that triggered the rule, as written. */
    offending: string;
  };

export function judgeCommand(_command: string): PolicyVerdict {
  return { allowed: true };
}
