// Every text the shell policy shows the model, in one place so the messages can be reviewed
// together. A refusal is short (it rides in the conversation from then on): what was refused and
// why in one clause, the exact call to use instead (or one worked example when none could be
// derived from the command), and what stays allowed so the model does not over-correct.

/** The shell policy's rule ids: the `rule` of a refused {@linkcode PolicyVerdict}. */
export type PolicyRule =
  | "read_file"
  | "search_text"
  | "list_files"
  | "edit_in_place"
  | "bare_sleep"
  | "never_ends"
  | "parse_error";

interface RuleText {
  /** First line: the rule id, why in one clause, and the tool to use instead. */
  headline: string;
  /** Worked examples in the replacement tools' real syntax, shown when no call was derived. */
  examples: string[];
  /** Extra guidance, only where a call alone does not say it. */
  note?: string;
  /** That the tool works on ssh:// hosts too, with one example (said unless the line ran there). */
  remote?: string;
  /** What the rule leaves allowed, in one line. */
  allowed: string;
}

// Exported for tests.
export const RULE_TEXTS: Record<PolicyRule, RuleText> = {
  read_file: {
    headline: "Refused by the shell policy (rule read_file): read files with `view` (it shows " +
      "the line ids the edit tools take), not cat/head/tail/less/more. Nothing was run.",
    examples: [
      `view {"path": "src/app.ts", "start": 10, "end": 40}   (lines 10 to 40; "start": -50 ` +
      `for the last 50; ssh://host/path for a remote file)`,
    ],
    allowed: "Still allowed: cat/head/tail after a `|` or writing into a file, /proc, /sys and " +
      "/dev, xxd/od for binary files, `git show REV:path`.",
  },
  search_text: {
    headline: "Refused by the shell policy (rule search_text): search contents with `view` and " +
      "`content` (matches come with line ids; .gitignore honoured), not grep/rg/ag/ack. Nothing " +
      "was run.",
    examples: [
      `view {"path": "src", "content": "(?i)fn\\\\s+parse_\\\\w+", "regex": true, "pattern": "*.rs"}   ` +
      `(RE2; (?i) ignores case; "context": 2 adds lines)`,
    ],
    remote: 'view searches files on ssh hosts too: view {"path": "ssh://devbox/srv/app", ' +
      '"content": "TODO"}.',
    allowed: "Still allowed: grep/rg after a `|` or on here-strings, `git grep`, /proc, /sys and " +
      "/dev, output redirected into a file.",
  },
  list_files: {
    headline: "Refused by the shell policy (rule list_files): list and find files with `view` " +
      "on a directory (rows carry line counts), not ls/find/tree/fd. Nothing was run.",
    examples: [
      `view {"path": "src", "pattern": "**/*.test.ts|!**/vendor/**", "max_depth": 3}   ` +
      `(globs: * ** ? [abc] {a,b}; ! excludes; "include_hidden": true for dot files)`,
    ],
    allowed: "Still allowed: stat/du/wc/file, `git ls-files`, find with -delete or -exec, " +
      "listings redirected into a file.",
  },
  edit_in_place: {
    headline: "Refused by the shell policy (rule edit_in_place): change files with " +
      "`text_editor` (str_replace) or `batch_edit`, not sed/awk/perl -i or an editor. Nothing " +
      "was run.",
    examples: [
      `text_editor {"command": "str_replace", "path": "src/app.ts", "old_text": "retries = 3", ` +
      `"new_text": "retries = 5", "replace_all": true}   (like s///g)`,
    ],
    allowed: "Still allowed: sed/awk/perl as filters after a `|`, on here-strings and heredocs, " +
      "and on /proc, /sys and /dev.",
  },
  bare_sleep: {
    headline: "Refused by the shell policy (rule bare_sleep): a bare `sleep` burns the whole " +
      "tool call doing nothing; long commands move to the background by themselves. Nothing " +
      "was run.",
    examples: [
      `shell {"command": "until curl -sf http://localhost:8080/health; do sleep 2; done"}   ` +
      `(wait for a condition)`,
      `jobs {"action": "wait", "id": "1234-1"}   (wait for a background job)`,
    ],
    allowed: "Still allowed: sleep inside while/until/for loops, and backgrounded timers.",
  },
  never_ends: {
    headline: "Refused by the shell policy (rule never_ends): this never terminates without a " +
      "terminal; run the command itself and read its output with `jobs`. Nothing was run.",
    examples: [
      `jobs {"action": "read", "id": "1234-1"}   (a job's output so far, instead of tail -f or ` +
      `less)`,
    ],
    allowed: "Still allowed: `top -b -n 1`, `ping -c 3 host`, `timeout 30 tail -f app.log`, " +
      "pipes into head/grep instead of a pager, `ssh host`.",
  },
  parse_error: {
    headline: "Refused by the shell policy (rule parse_error): the command line could not be " +
      "parsed, and anchorfs does not guess what an unbalanced command means. Nothing was run.",
    examples: [
      `text_editor {"command": "create", "path": "scripts/run.sh", "file_text": "…"}   then ` +
      `shell {"command": "bash scripts/run.sh"}   (a long script is easier to get right as a file)`,
    ],
    note: "Check that every ' and \" has its partner, every $( ( { and backtick is closed, and " +
      "every if/while/for/case has its fi/done/esac.",
    allowed: "Everything else about the command is judged as usual once it parses.",
  },
};

/** Why a particular program never ends (shown under the never_ends headline). */
export const NEVER_ENDS_REASONS: Record<string, string> = {
  watch: "`watch` re-runs its command forever and paints a terminal screen that does not exist " +
    "here: run the command once, or loop on a condition (`until <check>; do sleep 2; done`).",
  top: "`top` refreshes forever without a terminal: `top -b -n 1` prints one snapshot and exits.",
  monitor: "interactive monitors (htop, btop, atop, iotop, nmon, glances) need a terminal and " +
    "never exit: use `top -b -n 1` or `ps aux --sort=-%cpu | head`.",
  follow: "following a file or log (tail -f, journalctl -f, dmesg -w) never exits: if a command " +
    "of yours writes it, run that command through shell and read its output with jobs; " +
    'otherwise read the last lines once with view {"path": "app.log", "start": -100}.',
  pager: "pagers (less, more, most) wait for keys that never come: drop the pager, or filter " +
    "with `| head -n 50` / `| grep …`.",
  ping: "`ping` without -c pings forever: `ping -c 3 host`.",
  yes:
    "`yes` prints forever unless something downstream stops reading: pipe it (`yes | head -n 3`).",
};

/** Why an interactive editor is refused (edit_in_place). */
export const EDITOR_REASON = "interactive editors (vim, nano, emacs …) wait for a terminal that " +
  "does not exist here: use text_editor or batch_edit.";

export const NOTHING_TO_READ_REASON = "it has no file operand and nothing on its standard " +
  "input, so it would read nothing; name the file and use view instead.";

/** One call formatted the way the examples are: `tool {"key": value, …}`. */
export function formatCall(tool: string, args: Record<string, unknown>): string {
  const fields = Object.entries(args).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `${tool} {${fields.join(", ")}}`;
}

export interface RefusalText {
  rule: PolicyRule;
  /** The simple command that triggered the rule, as written. */
  offending: string;
  /** The ssh host the command would have run on, if it came through ssh. */
  host?: string;
  /** One line on why this particular command hit the rule. */
  reason?: string;
  /** The exact replacement call(s) for this command, when they could be derived. */
  calls?: string[];
  /** For parse errors: what could not be parsed. */
  parseError?: string;
  /**
   * The literal files the refused program reads (joined with any `cd` before it), for a caller
   * that can look them up: see `outside` in judgeCommand's options. Absent when one of them is
   * only known at run time (`$f`, a glob) or the command runs on an ssh host.
   */
  files?: string[];
}

/**
 * The whole message for the model: headline, this command, why (if this command has its own
 * reason), the exact calls instead (or the rule's examples), what stays allowed.
 */
export function formatRefusal(r: RefusalText): string {
  const text = RULE_TEXTS[r.rule];
  const lines = [text.headline];
  const where = r.host ? ` (on host "${r.host}", through ssh)` : "";
  if (r.parseError) {
    lines.push(`Could not parse${where}: ${r.parseError}.`);
    lines.push(`Command: ${quoteCode(r.offending)}`);
  } else {
    lines.push(`Refused command${where}: ${quoteCode(r.offending)}`);
  }
  if (r.reason) lines.push(`Why: ${r.reason}`);
  if (r.host && r.rule !== "parse_error" && r.rule !== "bare_sleep") {
    lines.push(
      `Remote files need no ssh command: give view/text_editor/batch_edit a path like ` +
        `"ssh://${r.host}/absolute/path" ("ssh://${r.host}/~/dir" for the home directory).`,
    );
  }
  if (r.calls && r.calls.length > 0) {
    lines.push("Instead, call:");
    for (const call of r.calls) lines.push(`  ${call}`);
  } else {
    lines.push("For example:");
    for (const example of text.examples) lines.push(`  ${example}`);
  }
  if (text.note) lines.push(text.note);
  if (text.remote && !r.host) lines.push(text.remote);
  lines.push(text.allowed);
  return lines.join("\n");
}

function quoteCode(command: string): string {
  const oneLine = command.length > 300 ? `${command.slice(0, 300)}…` : command;
  return `\`${oneLine}\``;
}
