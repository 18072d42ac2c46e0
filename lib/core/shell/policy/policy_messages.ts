// Every text the shell policy shows the model, in one place so the messages can be reviewed
// together. Each refusal: first line names the rule and the replacement tool, then worked
// examples in the tools' real argument syntax, then what stays allowed.

export type PolicyRule =
  | "read_file"
  | "search_text"
  | "list_files"
  | "edit_in_place"
  | "bare_sleep"
  | "never_ends"
  | "parse_error";

interface RuleText {
  /** First line: the rule id and the tool to use instead. */
  headline: string;
  /** Worked examples in the replacement tools' real argument syntax. */
  examples: string[];
  /** Extra guidance shown between the examples and the allowed list, if any. */
  note?: string;
  /** What the rule leaves allowed, so the model does not over-correct. */
  allowed: string;
}

export const RULE_TEXTS: Record<PolicyRule, RuleText> = {
  read_file: {
    headline: "Refused by the shell policy (rule read_file): read files with the `view` tool, " +
      "not cat/head/tail/less/more. Nothing was run.",
    examples: [
      `view {"path": "src/app.ts", "start": 10, "end": 40}   (lines 10 to 40, like sed -n 10,40p)`,
      `view {"path": "logs/build.log", "start": -50}   (the last 50 lines, like tail -n 50)`,
      `view {"path": "ssh://box/etc/nginx/nginx.conf", "start": 1, "end": 60}   (a file on a remote host)`,
    ],
    note: 'view {"path": "src/app.ts"} shows the whole file, each line as N:hh|text: the ' +
      "line ids (`12:a3`) that text_editor and batch_edit accept. It reads remote files through " +
      "ssh:// paths without a shell.",
    allowed:
      "Still allowed: cat/head/tail as stream filters after `|` (`make 2>&1 | tail -n 30`), " +
      "writing with them (`cat <<'EOF' > notes.txt`, `cat a.txt b.txt > both.txt`: their output " +
      "goes to a file, not to you), the kernel's pseudo-files under /proc, /sys and /dev " +
      "(`cat /proc/meminfo`), xxd/od/hexdump for binary files, and `git show REV:path` for " +
      "other revisions.",
  },
  search_text: {
    headline: "Refused by the shell policy (rule search_text): search file contents with the " +
      "`view` tool and `content`, not grep/rg/ag/ack. Nothing was run.",
    examples: [
      `view {"path": "src", "content": "TODO", "regex": false, "context": 2, "pattern": "*.ts"}`,
      `view {"path": ".", "content": "(?i)fn\\\\s+parse_\\\\w+", "regex": true}   ` +
      `(a regular expression; the (?i) prefix ignores case)`,
      `view {"path": "ssh://box/srv/app|ssh://box/etc/app", "content": "listen", "regex": false}   ` +
      `(several roots joined with |, on a remote host)`,
    ],
    note: "Matches come back with line ids you can pass straight to batch_edit; .gitignore is " +
      "honoured.",
    allowed:
      "Still allowed: grep/rg as stream filters after `|` (`cargo build 2>&1 | grep error`), " +
      'on here-strings (`grep -c x <<< "$out"`), `git grep`, searching /proc, /sys and /dev, ' +
      "and search output redirected into a file.",
  },
  list_files: {
    headline:
      "Refused by the shell policy (rule list_files): list and find files with the `view` " +
      "tool on a directory (with `pattern`), not ls/find/tree/fd. Nothing was run.",
    examples: [
      `view {"path": "src", "max_depth": 1}   (the entries of one directory, like ls)`,
      `view {"path": ".", "pattern": "**/*.test.ts", "max_depth": 3, "include_hidden": true}`,
      `view {"path": "ssh://box/var/www", "pattern": "**/*.php|!**/vendor/**"}   (remote; ` +
      `the ! glob excludes)`,
    ],
    note: "Glob grammar for `pattern`: * within a name, ** across directories, ? one character, " +
      "[abc] a set, {a,b} alternatives, a leading ! excludes, | separates globs applied in order " +
      "(the later one wins). .gitignore is honoured; include_hidden shows dot files. Each file " +
      "row carries its line count and a token estimate (no need for wc -l).",
    allowed:
      "Still allowed: stat/du/wc/file for metadata, `git ls-files`, ls/find on /proc, /sys " +
      "and /dev, `find … -delete` and `find … -exec rm {} +` (actions, not listings), and " +
      "listings redirected into a file (`find . -name '*.o' > objects.txt`).",
  },
  edit_in_place: {
    headline: "Refused by the shell policy (rule edit_in_place): change files with `text_editor` " +
      "(str_replace) or `batch_edit`, not sed/awk/perl -i or an editor. Nothing was run.",
    examples: [
      `text_editor {"command": "str_replace", "path": "src/app.ts", "old_text": "const retries = 3;", ` +
      `"new_text": "const retries = 5;"}`,
      `batch_edit {"path": "src/app.ts", "operations": [{"op": "replace", "start": "12:a3", ` +
      `"end": "14:0f", "content": "…"}, {"op": "insert", "anchor": "20:5c", "content": "…"}]}   ` +
      `(line ids come from view)`,
      `text_editor {"command": "create", "path": "config/local.json", "file_text": "…"}   ` +
      `(write a whole file)`,
    ],
    note: 'Add "replace_all": true to str_replace to change every occurrence (like s///g). ' +
      'To read part of a file (sed -n, awk print) use view {"path": "src/app.ts", ' +
      '"start": 10, "end": 40}; to change the same text in many files, find them with view ' +
      "and `content`, then make one edit call per file. ssh:// paths work the same way.",
    allowed: "Still allowed: sed/awk/perl as stream filters after `|` (`git log --oneline | " +
      "awk '{print $1}'`), on here-strings and heredocs, `awk 'BEGIN { … }'` without input, and " +
      "on /proc, /sys and /dev.",
  },
  bare_sleep: {
    headline:
      "Refused by the shell policy (rule bare_sleep): a bare `sleep` burns the whole tool " +
      "call doing nothing; wait on a condition in a loop, or use the `jobs` tool. Nothing was run.",
    examples: [
      `shell {"command": "until curl -sf http://localhost:8080/health; do sleep 2; done"}   ` +
      `(wait for a condition: sleep inside a loop is fine)`,
      `shell {"command": "until [ -f build/done.marker ]; do sleep 2; done && make report"}`,
      `jobs {"action": "wait", "id": "1234-1"}   (wait for a background job to finish)`,
    ],
    note: "Long commands move to the background by themselves and you are notified when they " +
      "finish: there is no need to sleep while something builds or starts. Write the condition " +
      "you are waiting for as `until <check>; do sleep 2; done`.",
    allowed: "Still allowed: sleep inside while/until/for loops, and backgrounded timers " +
      '(`(sleep 30; kill "$pid") &`).',
  },
  never_ends: {
    headline: "Refused by the shell policy (rule never_ends): this command never terminates in a " +
      "non-interactive shell; run the command itself and read its output with the `jobs` tool. " +
      "Nothing was run.",
    examples: [
      `shell {"command": "npm run dev"}   (a long command moves to the background by itself and ` +
      `reports a job id)`,
      `jobs {"action": "read", "id": "1234-1"}   (the job's output so far, instead of tail -f or less)`,
      `shell {"command": "top -b -n 1 | head -n 20"}   (one snapshot instead of top/htop/watch)`,
    ],
    note: "There is no terminal here: pagers and monitors wait for keys that never come, and " +
      "followers (tail -f, journalctl -f) never exit. To block until a job ends: " +
      'jobs {"action": "wait", "id": "1234-1"}.',

    allowed: "Still allowed: `top -b -n 1`, `ping -c 3 host`, `timeout 30 tail -f app.log` " +
      "(bounded), pipelines into grep/head/tail instead of less/more, and `ssh host` with or " +
      "without a command.",
  },
  parse_error: {
    headline: "Refused by the shell policy (rule parse_error): the command line could not be " +
      "parsed, and anchorfs does not guess what an unbalanced command means. Nothing was run.",
    examples: [
      `shell {"command": "echo \\"it's quoted\\" && grep -c x <<< 'a; b'"}   (every quote closed)`,
      `shell {"command": "echo $(date) && (cd build && make)"}   (every $( and ( closed)`,
      `text_editor {"command": "create", "path": "scripts/run.sh", "file_text": "…"}   then ` +
      `shell {"command": "bash scripts/run.sh"}   (long scripts are easier to get right as a file)`,
    ],
    note: "Check that every ' and \" has its partner, every $( ( { and backtick is closed, and " +
      "every if/while/for/case has its fi/done/esac.",
    allowed: "Everything else about the command is still judged the same way once it parses.",
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
}

/** The whole message for the model: headline, this command, replacement, examples, allowed. */
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
  }
  lines.push("Examples:");
  for (const example of text.examples) lines.push(`  ${example}`);
  if (text.note) lines.push(text.note);
  lines.push(text.allowed);
  return lines.join("\n");
}

function quoteCode(command: string): string {
  const oneLine = command.length > 300 ? `${command.slice(0, 300)}…` : command;
  return `\`${oneLine}\``;
}
