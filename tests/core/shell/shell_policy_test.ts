// The shell policy (lib/core/shell/policy/, pure): a table of 150+ command lines judged allowed or
// refused, and every refusal's text: headline, the call instead, what stays allowed, its length.

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { judgeCommand } from "../../../lib/core/shell/policy/mod.ts";
import { type PolicyRule, RULE_TEXTS } from "../../../lib/core/shell/policy/policy_messages.ts";

type Expected = "allowed" | PolicyRule;

// [command line, expected verdict]: the whole policy as a table.
const CASES: [string, Expected][] = [
  // --- read_file ---
  ["cat src/app.ts", "read_file"],
  ["cat -n src/app.ts", "read_file"],
  ["head -n 20 README.md", "read_file"],
  ["head -20 README.md", "read_file"],
  ["tail -n 50 build.log", "read_file"],
  ["tail build.log", "read_file"],
  ["less src/app.ts", "read_file"],
  ["more notes.txt", "read_file"],
  ["tac log.txt", "read_file"],
  ["nl -ba src/app.ts", "read_file"],
  ["bat src/app.ts", "read_file"],
  ["cat < src/app.ts", "read_file"],
  ["cat", "read_file"],
  ["sed -n '10,20p' src/app.ts", "read_file"],
  ["cat /etc/hosts", "read_file"],
  ["cat ~/.bashrc", "read_file"],
  ["cat /proc/meminfo", "allowed"],
  ["cat /sys/class/net/eth0/address", "allowed"],
  ["head -c 16 /dev/urandom | od -x", "allowed"],
  ["cat /dev/null > empty.txt", "allowed"],
  ["cat <<EOF > notes.txt\nhello\nEOF", "allowed"],
  ["cat <<'EOF' | kubectl apply -f -\nkind: Pod\nEOF", "allowed"],
  ["cat a.txt | grep x", "read_file"],
  ["cat f | grep -n x", "read_file"],
  ["cat f | head -20", "read_file"],
  ["cat a | grep x b.txt", "read_file"],
  ['cat > config.json <<EOF\n{"a": 1}\nEOF', "allowed"],
  ["cat <<< 'inline text'", "allowed"],
  ["cat a.txt b.txt > both.txt", "allowed"],
  ["cat part1 part2 >> all.txt", "allowed"],
  ["cat src/app.ts > /dev/stdout", "read_file"],
  ["cat src/app.ts 2>/dev/null", "read_file"],
  ["cat src/app.ts > /dev/null", "read_file"],
  ["make 2>&1 | tail -n 30", "allowed"],
  ["npm test | head -50", "allowed"],
  ["echo hi | cat", "allowed"],
  ["echo hi | cat - src/app.ts", "read_file"],

  // --- search_text ---
  ["grep -rn TODO src", "search_text"],
  ["grep TODO src/app.ts", "search_text"],
  ["grep -r TODO", "search_text"],
  ["grep TODO", "search_text"],
  ["grep -q needle file.txt", "search_text"],
  ["egrep 'a|b' file.txt", "search_text"],
  ["fgrep -F 'x.y' file.txt", "search_text"],
  ["rg TODO", "search_text"],
  ["rg -t ts parseLineId", "search_text"],
  ["ag foo lib", "search_text"],
  ["ack foo", "search_text"],
  ["grep foo < data.txt", "search_text"],
  ["grep MemTotal /proc/meminfo", "allowed"],
  ['grep -c x <<< "$out"', "allowed"],
  ["grep -rl TODO . > todo-files.txt", "allowed"],
  ["cargo build 2>&1 | grep error", "allowed"],
  ["ps aux | grep node", "allowed"],
  ["git log --oneline | grep -i fix", "allowed"],
  ["make | grep error build.log", "search_text"],
  ["git grep TODO", "allowed"],
  ["git grep -n 'fn main' -- '*.rs'", "allowed"],
  ["git ls-files | xargs grep foo", "search_text"],
  ["git ls-files | xargs wc -l", "allowed"],
  ["rg --files", "list_files"],
  ["rg --files src | wc -l", "list_files"],
  ["ag -g test", "list_files"],

  // --- list_files ---
  ["ls", "list_files"],
  ["ls -la", "list_files"],
  ["ls -la src/", "list_files"],
  ["ls src/*.ts", "list_files"],
  ["ls -R lib", "list_files"],
  ["ls /usr/lib", "list_files"],
  ["ls /proc/self/fd", "allowed"],
  ["ls -l /dev/ttyUSB0", "allowed"],
  ["ls > files.txt", "allowed"],
  ["find . -name '*.ts'", "list_files"],
  ["find src -type f -maxdepth 2", "list_files"],
  ["find / -name 'libssl.so*' 2>/dev/null", "list_files"],
  ["find . -name '*.pyc' -delete", "allowed"],
  ["find . -name '*.tmp' -exec rm {} +", "allowed"],
  ["find . -type f -exec chmod 644 {} \\;", "allowed"],
  ["find . -name '*.ts' -exec grep -l foo {} +", "search_text"],
  ["find . -name '*.ts' -exec cat {} \\;", "read_file"],
  ["find . -name '*.ts' -exec sed -i 's/a/b/' {} +", "edit_in_place"],
  ["find . -name '*.o' > objects.txt", "allowed"],
  ["find /sys/class/net -maxdepth 1", "allowed"],
  ["tree", "list_files"],
  ["tree -L 2 src", "list_files"],
  ["fd -e ts", "list_files"],
  ["fd config src", "list_files"],
  ["fd -e bak -x rm", "allowed"],
  ["eza -la", "list_files"],
  ["git ls-files", "allowed"],
  ["stat src/app.ts", "allowed"],
  ["du -sh node_modules", "allowed"],
  ["wc -l src/app.ts", "allowed"],
  ["make | ls", "allowed"],
  ["for f in $(ls *.txt); do echo $f; done", "list_files"],

  // --- edit_in_place ---
  ["sed -i 's/foo/bar/g' src/app.ts", "edit_in_place"],
  ["sed -i.bak -e 's/a/b/' a.txt", "edit_in_place"],
  ["sed --in-place 's/a/b/' a.txt", "edit_in_place"],
  ["sed 's/foo/bar/' template.txt > out.txt", "edit_in_place"],
  ["sed 's/a/b/' a.txt", "edit_in_place"],
  ["awk '{print $1}' data.tsv", "read_file"],
  ["awk -F: '{print $1}' /etc/passwd", "read_file"],
  ["awk '{print $2}' in.tsv > out.tsv", "edit_in_place"],
  ["awk '{sub(/a/, \"b\")} 1' f > f.tmp && mv f.tmp f", "edit_in_place"],
  ["gawk -i inplace '{gsub(/a/, \"b\")} 1' file.txt", "edit_in_place"],
  ["perl -pi -e 's/foo/bar/' src/app.ts", "edit_in_place"],
  ["perl -i.bak -pe 's/a/b/g' x.txt", "edit_in_place"],
  ["perl -pie 's/a/b/' x.txt", "edit_in_place"],
  ["perl -ne 'print if /x/' data.txt", "allowed"],
  ["perl -e 'print 1+1'", "allowed"],
  ["vim src/app.ts", "edit_in_place"],
  ["nano config.yml", "edit_in_place"],
  ["git log --oneline | awk '{print $1}'", "allowed"],
  ["echo a-b | sed 's/-/_/'", "allowed"],
  ["sed 's/a/b/' <<< \"$name\"", "allowed"],
  ["awk 'BEGIN { print 6 * 7 }'", "allowed"],
  ["awk '{print}' /proc/loadavg", "allowed"],
  ["sed -i 's/a/b/' /proc/sys/kernel/x", "allowed"],
  ["printf 'a\\nb\\n' | awk 'NR==2'", "allowed"],

  // --- bare_sleep ---
  ["sleep 5", "bare_sleep"],
  ["sleep 0.5", "bare_sleep"],
  ["sleep 5 && curl localhost:8080", "bare_sleep"],
  ["npm start & sleep 3; curl localhost:3000", "bare_sleep"],
  ["echo start; sleep 10; echo done", "bare_sleep"],
  ["/bin/sleep 2", "bare_sleep"],
  ["timeout 10 sleep 5", "bare_sleep"],
  ["if true; then sleep 1; fi", "bare_sleep"],
  ["echo $(sleep 2)", "bare_sleep"],
  ["until curl -sf localhost:8080; do sleep 2; done", "allowed"],
  ["while ! test -f done.marker; do sleep 1; done", "allowed"],
  ["for i in 1 2 3; do curl -s x && break; sleep 1; done", "allowed"],
  ["while sleep 1; do pgrep make || break; done", "allowed"],
  ["for ((i = 0; i < 5; i++)); do sleep 1; done", "allowed"],
  ["while true; do if ready; then break; fi; sleep 2; done", "allowed"],
  ["(sleep 30; kill $pid) &", "allowed"],
  ["sleep 60 &", "allowed"],
  ["timeout 60 bash -c 'until nc -z localhost 5432; do sleep 1; done'", "allowed"],

  // --- never_ends ---
  ["watch -n 1 ls", "never_ends"],
  ["watch make", "never_ends"],
  ["top", "never_ends"],
  ["top -b -n 1", "allowed"],
  ["top -bn1 | head -20", "allowed"],
  ["htop", "never_ends"],
  ["tail -f server.log", "never_ends"],
  ["tail -F /var/log/syslog", "never_ends"],
  ["tail -fn 100 app.log", "never_ends"],
  ["tail --follow=name app.log", "never_ends"],
  ["timeout 30 tail -f app.log", "allowed"],
  ["journalctl -fu nginx", "never_ends"],
  ["journalctl -u nginx -n 50", "allowed"],
  ["dmesg -w", "never_ends"],
  ["dmesg | tail -20", "allowed"],
  ["git log | less", "never_ends"],
  ["man git | more", "never_ends"],
  ["less", "never_ends"],
  ["ping example.com", "never_ends"],
  ["ping -c 3 example.com", "allowed"],
  ["yes", "never_ends"],
  ["yes | head -n 3", "allowed"],
  ["ssh box top", "never_ends"],

  // --- separators and grouping ---
  ["make && make test", "allowed"],
  ["make; cat out.txt", "read_file"],
  ["make || cat error.log", "read_file"],
  ["make & cat out.txt", "read_file"],
  ["make\ncat out.txt", "read_file"],
  ["(cd lib && ls)", "list_files"],
  ["{ make; grep -r x .; }", "search_text"],
  ["if grep -q x f.txt; then echo y; fi", "search_text"],
  ["case $x in a) cat f;; *) echo no;; esac", "read_file"],
  ["make | { grep error; true; }", "allowed"],
  ["echo ok # cat secret.txt", "allowed"],
  ["f() { cat x; }; f", "read_file"],

  // --- quoting ---
  ['echo "grep x"', "allowed"],
  ["echo 'a; cat b'", "allowed"],
  ["echo 'a && ls'", "allowed"],
  ['echo "sleep 5"', "allowed"],
  ["echo a\\;cat b", "allowed"],
  ["git commit -m 'use cat instead; ls later'", "allowed"],
  ["'cat' src/app.ts", "read_file"],
  ["\\cat src/app.ts", "read_file"],
  ['"grep" -r x .', "search_text"],
  ["printf '%s\\n' \"$(cat VERSION)\"", "read_file"],
  ['echo "today: $(date)"', "allowed"],
  ["echo $'a\\'b; cat c'", "allowed"],
  ["$'\\x63at' src/app.ts", "read_file"],
  ["$'\\147rep' -r x .", "search_text"],

  // --- $( ) and backticks ---
  ["echo $(cat x)", "read_file"],
  ["x=$(grep -c foo f.txt)", "search_text"],
  ["echo `ls`", "list_files"],
  ["echo `echo \\`cat f\\``", "read_file"],
  ["echo $(echo $(tail x))", "read_file"],
  ["diff <(sort a.txt) <(cat b.txt)", "read_file"],
  ["diff <(sort a.txt) <(sort b.txt)", "allowed"],
  ["echo ${x:-$(cat default.txt)}", "read_file"],
  ["echo $((1 + 2))", "allowed"],
  ["((cat x) || echo failed)", "read_file"],
  ["echo $((cat x) | wc -l)", "read_file"],
  ["(( $(cat n) > 1 )) && echo big", "read_file"],
  ["echo $(( (1 + 2) * (3 + 4) ))", "allowed"],
  ["[[ $(cat state) == ok ]] && echo yes", "read_file"],
  ['echo "$(< VERSION)"', "read_file"],
  ['echo "$(< /proc/uptime)"', "allowed"],
  ["time (make && make test)", "allowed"],
  ["time -p cat x", "read_file"],
  ["time { grep x f; }", "search_text"],
  ["make | rg warning", "allowed"],
  ["make | grep -r warning", "search_text"],

  // --- heredocs ---
  ["python3 - <<'EOF'\nimport os\nprint(os.listdir('.'))\nEOF", "allowed"],
  ["cat <<EOF\ngrep -r x .\nsleep 5\nEOF", "allowed"],
  ["tee out.txt <<EOF\ncat y\nEOF\nls", "list_files"],
  ["git commit -F - <<'EOF'\nfix: ls and cat\nEOF", "allowed"],
  ["bash <<'EOF'\ncat secret.txt\nEOF", "read_file"],
  ["cat <<-EOF\n\tdata\n\tEOF\necho ok", "allowed"],

  // --- env prefixes and wrappers ---
  ["FOO=1 BAR=x grep foo file.txt", "search_text"],
  ["LC_ALL=C sort data.txt", "allowed"],
  ["env grep foo f", "search_text"],
  ["env -i PATH=/bin cat f", "read_file"],
  ["env -u HOME -C /tmp ls", "list_files"],
  ["env -S 'grep -r x' .", "search_text"],
  ["command grep x f", "search_text"],
  ["command -v grep", "allowed"],
  ["exec cat f", "read_file"],
  ["time grep -r x .", "search_text"],
  ["nice -n 10 find . -name x", "list_files"],
  ["nice -10 cat f", "read_file"],
  ["nohup tail -f log &", "never_ends"],
  ["sudo cat /etc/shadow", "read_file"],
  ["sudo -u postgres -E psql -c 'select 1'", "allowed"],
  ["sudo -i", "allowed"],
  ["stdbuf -oL grep x f", "search_text"],
  ["timeout -s KILL 5 cat f", "read_file"],
  ["bash -c 'cat x'", "read_file"],
  ["sh -lc 'ls -la'", "list_files"],
  ["bash scripts/build.sh", "allowed"],
  ["eval 'grep foo bar.txt'", "search_text"],
  ["busybox grep x f", "search_text"],
  ["xargs -0 -I{} cat {}", "read_file"],
  ["$CMD src/app.ts", "allowed"],
  ["sudo -e /etc/hosts", "edit_in_place"],
  ["sudoedit /etc/hosts", "edit_in_place"],
  ["su -c 'cat x' root", "read_file"],
  ["sh -s <<'EOF'\ngrep x y\nEOF", "search_text"],
  ["fd -e ts -x grep -l foo", "search_text"],
  ["command -p cat f", "read_file"],
  ['c""at file', "read_file"],
  ["nice -n 19 ionice -c3 make", "allowed"],
  ["exec > >(tee log) 2>&1", "allowed"],
  ["docker exec ctr cat /etc/hostname", "allowed"],
  ["python3 -c 'print(open(\"x\").read())'", "allowed"],

  // --- path prefixes ---
  ["/bin/grep x f", "search_text"],
  ["/usr/bin/cat f", "read_file"],
  ["./node_modules/.bin/rg x", "search_text"],
  ["../tools/bin/sed -i 's/a/b/' f", "edit_in_place"],
  ["/usr/local/bin/tree", "list_files"],
  ["./scripts/grep-helper.sh", "allowed"],

  // --- ssh ---
  ["ssh box", "allowed"],
  ["ssh -p 2222 box", "allowed"],
  ["ssh box 'make test'", "allowed"],
  ["ssh box uptime", "allowed"],
  ["ssh -p 2222 -o StrictHostKeyChecking=no box 'cd /x && grep -r TODO .'", "search_text"],
  ["ssh box cat /etc/nginx/nginx.conf", "read_file"],
  ["ssh -i ~/.ssh/id_ed25519 -J jump user@box 'ls /var/log'", "list_files"],
  ["ssh -l admin -oBatchMode=yes box 'tail -f /var/log/syslog'", "never_ends"],
  ["ssh box -p 2222 'cat x'", "read_file"],
  ["ssh -t jump ssh inner 'grep x /etc/hosts'", "search_text"],
  ["ssh jump \"ssh inner 'cat /etc/hosts'\"", "read_file"],
  ["ssh box 'sleep 10'", "bare_sleep"],
  ["ssh box 'until test -f /tmp/ready; do sleep 1; done'", "allowed"],
  ["ssh box 'ps aux | grep nginx'", "allowed"],
  ["ssh box 'bash -s' <<'EOF'\nls /srv\nEOF", "list_files"],
  ["ssh box <<'EOF'\ncat /etc/os-release\nEOF", "read_file"],
  ["ssh -N -L 8080:localhost:80 box", "allowed"],
  ["ssh box 'echo \"unbalanced'", "parse_error"],
  ["scp box:/etc/hosts .", "allowed"],
  ["ssh -s box sftp", "allowed"],
  ["ssh -- box 'ls'", "list_files"],
  ["ssh box -t htop", "never_ends"],
  ["ssh user@box", "allowed"],

  // --- malformed input ---
  ["echo 'unbalanced", "parse_error"],
  ['echo "unbalanced', "parse_error"],
  ["echo $(cat x", "parse_error"],
  ["echo `cat x", "parse_error"],
  ["(cd lib && make", "parse_error"],
  ["{ make; ", "parse_error"],
  ["while true; do make", "parse_error"],
  ["if true; then echo", "parse_error"],
  ["echo ${x", "parse_error"],
  ["make &&", "allowed"],
  ["| grep x", "parse_error"],
  ["echo >", "parse_error"],
  ["", "allowed"],
  ["   \n  ", "allowed"],
];

for (const [command, expected] of CASES) {
  Deno.test(`judgeCommand: ${JSON.stringify(command)} is ${expected}`, () => {
    const verdict = judgeCommand(command);
    const got = verdict.allowed ? "allowed" : verdict.rule;
    assertEquals(got, expected, verdict.allowed ? "allowed" : verdict.message);
  });
}

Deno.test("the policy table holds at least 150 command lines", () => {
  assert(CASES.length >= 150, `only ${CASES.length} cases`);
});

function refused(command: string) {
  const verdict = judgeCommand(command);
  if (verdict.allowed) throw new Error(`expected ${JSON.stringify(command)} to be refused`);
  return verdict;
}

Deno.test("every refusal starts with the rule's headline and ends with what stays allowed", () => {
  for (const [command, expected] of CASES) {
    if (expected === "allowed") continue;
    const v = refused(command);
    const lines = v.message.split("\n");
    assertEquals(lines[0], RULE_TEXTS[expected].headline);
    assertStringIncludes(lines[0]!, `rule ${expected}`);
    assertEquals(lines.at(-1), RULE_TEXTS[expected].allowed);
    // The exact call when one could be derived, otherwise the rule's worked example.
    const next = v.message.includes("\nInstead, call:\n  ") ||
      v.message.includes(`\nFor example:\n  ${RULE_TEXTS[expected].examples[0]}`);
    assert(next, v.message);
  }
});

Deno.test("a refusal is short: what, why, the call instead, what stays allowed", () => {
  // It stays in the conversation from then on (they were ~1 KB each before).
  const sizes = CASES.filter(([, expected]) => expected !== "allowed").map(([command]) =>
    [command, new TextEncoder().encode(refused(command).message).length] as const
  );
  for (const [command, bytes] of sizes) assert(bytes <= 900, `${command}: ${bytes} bytes`);
  const plain = ["cat index.js", "sleep 3", "grep -rn isNumeric lib", "ls -la src"];
  for (const command of plain) {
    const bytes = new TextEncoder().encode(refused(command).message).length;
    assert(bytes <= 520, `${command}: ${bytes} bytes`);
  }
  assertEquals(
    refused("cat index.js").message,
    [
      RULE_TEXTS.read_file.headline,
      "Refused command: `cat index.js`",
      "Instead, call:",
      '  view {"path": "index.js"}',
      RULE_TEXTS.read_file.allowed,
    ].join("\n"),
  );
});

Deno.test("a refusal quotes the offending simple command, not the whole line", () => {
  const v = refused("make && cat out.txt | wc -l");
  assertEquals(v.offending, "cat out.txt");
  assertStringIncludes(v.message, "Refused command: `cat out.txt`");
});

Deno.test("the first offending command in reading order wins", () => {
  assertEquals(refused("ls; cat x").rule, "list_files");
  assertEquals(refused("echo $(cat x) && ls").rule, "read_file");
});

Deno.test("read_file hands over the exact view call with start and end", () => {
  assertStringIncludes(refused("cat src/app.ts").message, `view {"path": "src/app.ts"}`);
  assertStringIncludes(
    refused("head -n 40 src/app.ts").message,
    `view {"path": "src/app.ts", "start": 1, "end": 40}`,
  );
  assertStringIncludes(
    refused("tail -n 25 build.log").message,
    `view {"path": "build.log", "start": -25}`,
  );
  assertStringIncludes(
    refused("tail -n +5 build.log").message,
    `view {"path": "build.log", "start": 5}`,
  );
  assertStringIncludes(
    refused("sed -n '10,20p' a.ts").message,
    `view {"path": "a.ts", "start": 10, "end": 20}`,
  );
});

Deno.test("cat FILE | grep/head/tail offers the filter run on the file, not a plain view", () => {
  assertStringIncludes(
    refused("cat a.txt | grep x").message,
    `view {"path": "a.txt", "content": "x", "regex": false}`,
  );
  assertStringIncludes(
    refused("cat f | grep -n x").message,
    `view {"path": "f", "content": "x", "regex": false}`,
  );
  assertStringIncludes(
    refused("cat f | head -20").message,
    `view {"path": "f", "start": 1, "end": 20}`,
  );
  assertStringIncludes(refused("cat f | tail -n 5").message, `view {"path": "f", "start": -5}`);
  assertStringIncludes(
    refused("cd src && cat f | grep -i Foo").message,
    `view {"path": "src/f", "content": "(?i)Foo", "regex": true}`,
  );
  // A stage with files of its own, or flags view cannot express: the plain view of cat's file.
  assertStringIncludes(refused("cat a | grep x b.txt").message, `view {"path": "a"}\n`);
  assertStringIncludes(refused("cat f | grep -v x").message, `view {"path": "f"}\n`);
  assertEquals(refused("cat a.txt | grep x").offending, "cat a.txt");
});

Deno.test("search_text translates grep's flags into view's content, regex, context and pattern", () => {
  assertStringIncludes(
    refused("grep -rn TODO src").message,
    `view {"path": "src", "content": "TODO", "regex": false}`,
  );
  assertStringIncludes(
    refused("grep -rin 'todo' src --include=*.ts -C 3").message,
    `view {"path": "src", "content": "(?i)todo", "regex": true, "context": 3, "pattern": "*.ts"}`,
  );
  assertStringIncludes(
    refused("grep -E 'foo|bar' a.txt b.txt").message,
    `view {"path": "a.txt|b.txt", "content": "foo|bar", "regex": true}`,
  );
  assertStringIncludes(
    refused("grep 'a\\|b' x").message,
    `"content": "a|b", "regex": true`,
  );
  assertStringIncludes(
    refused("rg -t ts parseLineId").message,
    `view {"path": ".", "content": "parseLineId", "regex": false, "pattern": "*.{ts,tsx,cts,mts}"}`,
  );
});

Deno.test("calls are only handed over for paths known before the command runs", () => {
  const v = refused('cat "$f"');
  assert(!v.message.includes("Instead, call:"), v.message);
  assertStringIncludes(
    refused("cat src/*.ts").message,
    `view {"path": "src", "pattern": "*.ts", "max_depth": 1}`,
  );
  assertStringIncludes(
    refused("grep -n foo lib/*.ts").message,
    `view {"path": "lib", "content": "foo", "regex": false, "pattern": "*.ts", "max_depth": 1}`,
  );
  assertStringIncludes(
    refused("grep -e foo -e bar x.txt").message,
    `view {"path": "x.txt", "content": "foo|bar", "regex": true}`,
  );
  assertStringIncludes(
    refused("grep -w id x.txt").message,
    `view {"path": "x.txt", "content": "\\\\b(?:id)\\\\b", "regex": true}`,
  );
  assertStringIncludes(refused("awk '{print $1}' data.tsv").message, `view {"path": "data.tsv"}`);
});

Deno.test("list_files turns ls, find and tree into view with pattern and max_depth", () => {
  assertStringIncludes(
    refused("ls -la src").message,
    `view {"path": "src", "max_depth": 1, "include_hidden": true}`,
  );
  assertStringIncludes(
    refused("ls src/*.ts").message,
    `view {"path": "src", "pattern": "*.ts", "max_depth": 1}`,
  );
  assertStringIncludes(
    refused("find lib -name '*.ts' -maxdepth 2").message,
    `view {"path": "lib", "pattern": "*.ts", "max_depth": 2}`,
  );
  assertStringIncludes(
    refused("find . -name '*.ts' ! -name '*.d.ts'").message,
    `view {"path": ".", "pattern": "*.ts|!*.d.ts"}`,
  );
  assertStringIncludes(refused("tree -L 2 src").message, `view {"path": "src", "max_depth": 2}`);
});

Deno.test("edit_in_place turns a literal sed substitution into text_editor str_replace", () => {
  assertStringIncludes(
    refused("sed -i 's/retries = 3/retries = 5/' src/app.ts").message,
    `text_editor {"command": "str_replace", "path": "src/app.ts", "old_text": "retries = 3", ` +
      `"new_text": "retries = 5"}`,
  );
  assertStringIncludes(
    refused("perl -pi -e 's|/old/path|/new/path|g' conf").message,
    `"old_text": "/old/path", "new_text": "/new/path", "replace_all": true}`,
  );
});

Deno.test("remote commands get ssh:// paths that follow a cd", () => {
  const v = refused("ssh -p 2222 -o StrictHostKeyChecking=no box 'cd /x && grep -r TODO .'");
  assertEquals(v.offending, "grep -r TODO .");
  assertStringIncludes(v.message, `(on host "box:2222", through ssh)`);
  assertStringIncludes(v.message, `view {"path": "ssh://box:2222/x", "content": "TODO"`);
  assertStringIncludes(
    refused("ssh -l admin box cat notes.txt").message,
    `view {"path": "ssh://admin@box/~/notes.txt"}`,
  );
  assertStringIncludes(
    refused("ssh user@box 'cat /etc/hosts'").message,
    `view {"path": "ssh://user@box/etc/hosts"}`,
  );
});

Deno.test("a line run in an ssh:// directory gets ssh:// paths there, without 'through ssh'", () => {
  const runsOn = { host: "deploy@box:2222", dir: "/srv/app" };
  const judge = (line: string) => {
    const v = judgeCommand(line, "bash", { runsOn });
    assert(!v.allowed, line);
    return v;
  };
  const v = judge("cat notes.txt");
  assertStringIncludes(v.message, `view {"path": "ssh://deploy@box:2222/srv/app/notes.txt"}`);
  assert(!v.message.includes("through ssh"), v.message);
  // The files the caller looks up are the host's, as the command would name them there.
  assertEquals(v.files, ["/srv/app/notes.txt"]);
  assertStringIncludes(judge("cat /etc/hosts").message, `"ssh://deploy@box:2222/etc/hosts"`);
  assertStringIncludes(judge("cat ~/.profile").message, `"ssh://deploy@box:2222/~/.profile"`);
  assertStringIncludes(
    judge("cd src && grep -r TODO .").message,
    `view {"path": "ssh://deploy@box:2222/srv/app/src", "content": "TODO"`,
  );
  // A file found too big to view there is the shell's to read.
  const big = new Set(["/srv/app/big.log"]);
  assert(judgeCommand("cat big.log", "bash", { runsOn, outside: big }).allowed);
});

Deno.test("bare_sleep explains the burned call and shows the until loop", () => {
  const m = refused("sleep 10 && curl localhost").message;
  assertStringIncludes(m, "burns the whole tool call doing nothing");
  assertStringIncludes(m, "until curl -sf http://localhost:8080/health; do sleep 2; done");
  assertStringIncludes(m, "move to the background by themselves");
});

Deno.test("never_ends says why for the program and points at the jobs tool", () => {
  assertStringIncludes(refused("tail -f x.log").message, "never exits");
  assertStringIncludes(
    refused("tail -n 200 -f x.log").message,
    `Instead, call:\n  view {"path": "x.log", "start": -200}`,
  );
  assertStringIncludes(refused("watch ls").message, "`watch` re-runs its command forever");
  assertStringIncludes(refused("git log | less").message, "pagers");
  assertStringIncludes(refused("top").message, `jobs {"action": "read", "id": "1234-1"}`);
});

Deno.test("parse errors say what is unbalanced and where", () => {
  const v = refused("echo 'it is");
  assertStringIncludes(v.message, "unterminated single quote (') (at offset 5)");
  assertEquals(v.offending, "echo 'it is");
  assertStringIncludes(refused("echo $(date").message, `unterminated "$(" command substitution`);
});

Deno.test("every example in every message is a parseable call of a real tool", () => {
  for (const text of Object.values(RULE_TEXTS)) {
    assert(text.examples.length >= 1 && text.examples.length <= 2);
    for (const example of text.examples) {
      const m = /^(view|text_editor|batch_edit|jobs|shell) (\{.*?\})(?:\s{3}|$)/.exec(example);
      assert(m, `example is not "tool {json}": ${example}`);
      JSON.parse(m[2]!);
    }
  }
});

Deno.test("metamorphic: a refused line stays refused, same rule, after an allowed command", () => {
  for (const [command, expected] of CASES) {
    if (expected === "allowed" || expected === "parse_error") continue;
    for (const prefix of ["echo start; ", "true && ", "make || "]) {
      const v = judgeCommand(prefix + command);
      assertEquals(v.allowed ? "allowed" : v.rule, expected, prefix + command);
    }
  }
});

Deno.test("metamorphic: any line single-quoted as echo's argument is allowed", () => {
  for (const [command] of CASES) {
    const quoted = `echo '${command.replaceAll("'", `'\\''`)}'`;
    const v = judgeCommand(quoted);
    assert(v.allowed, `${quoted} was refused: ${v.allowed ? "" : v.rule}`);
  }
});

Deno.test("every shell example in a refusal's own text is allowed (bare_sleep's taught a refused cat)", () => {
  for (const [rule, texts] of Object.entries(RULE_TEXTS)) {
    for (const example of texts.examples ?? []) {
      const m = /^shell (\{.*?\})(\s|$)/.exec(example);
      if (!m) continue;
      const command = JSON.parse(m[1]!).command as string;
      const verdict = judgeCommand(command);
      assert(verdict.allowed, `${rule}: its example ${JSON.stringify(command)} is refused`);
    }
  }
});

Deno.test("a find with a test view cannot express runs; -path maps to a view pattern", () => {
  for (
    const command of [
      "find . -newer X -name '*.js'",
      'find . -newer package.json -not -path "./node_modules/*"',
      "find src -mtime -1 -type f",
    ]
  ) {
    const v = judgeCommand(command);
    assert(v.allowed, `${command}: ${v.allowed ? "" : v.message}`);
  }
  const mapped = judgeCommand("find . -name '*.js' -not -path './node_modules/*'");
  assert(!mapped.allowed);
  assertStringIncludes(mapped.message, 'view {"path": ".", "pattern": "*.js|!node_modules/**"}');
  assert(!mapped.message.includes("no equivalent"), mapped.message);
  assert(!mapped.message.includes("found.txt"), mapped.message);
  const plain = judgeCommand("find src -type f -maxdepth 2");
  assert(!plain.allowed);
  assert(!plain.message.includes("no equivalent"), plain.message);
});

Deno.test("a refusal names the literal files it read, joined with a cd; none for globs or hosts", () => {
  const files = (command: string) => {
    const v = judgeCommand(command);
    return v.allowed ? "allowed" : v.files;
  };
  assertEquals(files("grep -n x big.log other.log"), ["big.log", "other.log"]);
  assertEquals(files("cd logs && tail -n 5 app.log"), ["logs/app.log"]);
  assertEquals(files("grep x < in.log"), ["in.log"]);
  assertEquals(files("sed -i 's/a/b/' f.txt"), ["f.txt"]);
  assertEquals(files("ls -l pipe"), ["pipe"]);
  assertEquals(files("grep x *.log"), undefined);
  assertEquals(files('cat "$f"'), undefined);
  assertEquals(files("ssh box cat /var/log/app.log"), undefined);
  assertEquals(files("sleep 5"), undefined);
});

Deno.test("files the caller found anchorfs cannot read (outside) are the shell's to read, search, list and edit", () => {
  const outside = new Set(["big.log", "logs/app.log", "pipe"]);
  const judge = (command: string) => judgeCommand(command, "bash", { outside });
  for (
    const command of [
      "grep -n -m 100 -e TEXT big.log",
      "sed -n '1,200p' big.log",
      "head big.log | wc -l",
      "cd logs && tail -n 5 app.log",
      "ls -l pipe",
      "sed -i 's/a/b/' big.log",
      "perl -pi -e 's/a/b/' big.log",
      "awk '{print $1}' big.log",
    ]
  ) assertEquals(judge(command).allowed, true, command);
  for (
    const command of [
      "grep x big.log small.txt", // one file view can read
      "tail -n 5 app.log", // not the file found: logs/app.log was
      "grep x big.log && cat small.txt", // the next command is judged on its own
      "ssh box grep x big.log", // a host's file of the same name was never looked up
      "tail -f big.log", // never ends: the follow is refused for its own reason
      "vim big.log",
    ]
  ) assertEquals(judge(command).allowed, false, command);
});
