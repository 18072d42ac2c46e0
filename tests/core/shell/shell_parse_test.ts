// The shell parser (lib/core/shell/parse/, pure): heredocs, redirections and pipelines parsed as
// bash reads them; property tests.

import fc from "fast-check";
import { assert, assertEquals } from "../../_assert.ts";
import {
  parseCommandLine,
  type SimpleCommand,
  splitWords,
} from "../../../lib/core/shell/parse/mod.ts";

function commands(source: string): SimpleCommand[] {
  const parsed = parseCommandLine(source);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(source)} to parse: ${parsed.error}`);
  return parsed.commands;
}

/** Each simple command as its words' values joined by spaces. */
function shapes(source: string): string[] {
  return commands(source).map((c) =>
    [...c.assignments.map((w) => w.raw), ...c.words.map((w) => w.value)].join(" ")
  );
}

const SPLITS: [string, string[]][] = [
  ["a; b", ["a", "b"]],
  ["a && b || c", ["a", "b", "c"]],
  ["a & b", ["a", "b"]],
  ["a\nb\n\nc", ["a", "b", "c"]],
  ["a | b | c", ["a", "b", "c"]],
  ["a |& b", ["a", "b"]],
  ["(a; b) && { c; }", ["a", "b", "c"]],
  ["echo $(a; b)", ["echo $(a; b)", "a", "b"]],
  ["echo `a`", ["echo `a`", "a"]],
  ["diff <(a) >(b)", ["diff <(a) >(b)", "a", "b"]],
  ["x=$(a) y=1", ["x=$(a) y=1", "a"]],
  ["echo 'a; b' \"c && d\"", ["echo a; b c && d"]],
  ["echo a\\;b", ["echo a;b"]],
  ["echo a\\\nb", ["echo ab"]],
  ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
  ["while a; do b; done", ["a", "b"]],
  ["until a; do b; done", ["a", "b"]],
  ["for x in 1 2; do b; done", ["b"]],
  ["for x in $(a); do b; done", ["a", "b"]],
  ["for ((i=0; i<3; i++)); do b; done", ["b"]],
  ["case $x in a|b) c;; (d) e;& *) f;; esac", ["c", "e", "f"]],
  ["f() { a; }", ["a"]],
  ["function f { a; }", ["a"]],
  ["[[ -f x && $(a) ]] && b", ["a", "b"]],
  ["(( x > 1 )) && b", ["b"]],
  ["echo $((1 + (2 * 3)))", ["echo $((1 + (2 * 3)))"]],
  ["! a | b", ["a", "b"]],
  ["a # b; c", ["a"]],
  ["echo a#b", ["echo a#b"]],
  ["arr=(a b c); echo ${arr[@]}", ["arr=(a b c)", "echo ${arr[@]}"]],
  ['echo "$(a "b c")"', ['echo $(a "b c")', "a b c"]],
  ["echo ${x:-$(a)}", ["echo ${x:-$(a)}", "a"]],
  ["echo $'a\\'b'", ["echo a'b"]],
  ['echo "a\\"b"', ['echo a"b']],
  ["cat <<EOF\nnot; a command\nEOF\nb", ["cat", "b"]],
  ["cat <<'EOF'\n$(not run)\nEOF", ["cat"]],
  ["cat <<-EOF\n\tx\n\tEOF\nb", ["cat", "b"]],
  ["a <<A; b <<B\n1\nA\n2\nB\nc", ["a", "b", "c"]],
  ["x=$(cat <<EOF\nbody\nEOF\n)", ["x=$(cat <<EOF\nbody\nEOF\n)", "cat"]],
];

for (const [source, expected] of SPLITS) {
  Deno.test(`parseCommandLine splits ${JSON.stringify(source)}`, () => {
    assertEquals(shapes(source), expected);
  });
}

Deno.test("a heredoc's body is kept on its redirection, not parsed", () => {
  const [cat] = commands("cat <<'EOF' > out\nrm -rf /; $(x)\nEOF");
  assertEquals(cat!.redirects.map((r) => r.op), ["<<", ">"]);
  assertEquals(cat!.redirects[0]!.body, "rm -rf /; $(x)");
  assertEquals(cat!.redirects[1]!.target.value, "out");
});

Deno.test("an unterminated heredoc runs to the end of the input, as bash does", () => {
  const [cat] = commands("cat <<EOF\nline one\nline two");
  assertEquals(cat!.redirects[0]!.body, "line one\nline two");
});

Deno.test("file descriptors stay with their redirection", () => {
  const [make] = commands("make 2>&1 >build.log 2> err.txt");
  assertEquals(make!.words.map((w) => w.value), ["make"]);
  assertEquals(make!.redirects.map((r) => [r.fd, r.op, r.target.value]), [
    [2, ">&", "1"],
    [undefined, ">", "build.log"],
    [2, ">", "err.txt"],
  ]);
});

Deno.test("pipeline stages know their position and whether a pipe feeds them", () => {
  const [a, b, c, d] = commands("a | b | { c; }; d");
  assertEquals([a!.pipelineIndex, a!.pipelineLength, a!.fed], [0, 3, false]);
  assertEquals([b!.pipelineIndex, b!.pipelineLength, b!.fed], [1, 3, true]);
  assertEquals(c!.fed, true);
  assertEquals([d!.pipelineIndex, d!.pipelineLength, d!.fed], [0, 1, false]);
});

Deno.test("commands in loop conditions and bodies are marked, others are not", () => {
  const flags = commands("a; while b; do c; if d; then e; fi; done; f").map((c) => c.inLoop);
  assertEquals(flags, [false, true, true, true, true, false]);
});

Deno.test("background and substitution flags", () => {
  const [a, b, c, d] = commands("a & (b; c) & echo $(d)");
  assertEquals([a!.background, b!.background, c!.background], [true, true, true]);
  assertEquals(d!.words[0]!.value, "echo");
  const sub = commands("echo $(d)")[1]!;
  assertEquals(sub.inSubstitution, true);
});

Deno.test("commands come out in reading order with their text as written", () => {
  const cmds = commands("echo $(date) && cat 'my file' | wc -l");
  assertEquals(cmds.map((c) => c.text), ["echo $(date)", "date", "cat 'my file'", "wc -l"]);
});

Deno.test("words record quoting, expansions and globs", () => {
  const [cmd] = commands(`x "y" $HOME *.ts '*.ts'`);
  const [x, y, home, glob, quotedGlob] = cmd!.words;
  assertEquals([x!.quoted, y!.quoted], [false, true]);
  assertEquals([home!.expands, glob!.glob, quotedGlob!.glob], [true, true, false]);
});

const ERRORS: [string, string][] = [
  ["echo 'a", "unterminated single quote (')"],
  ['echo "a', 'unterminated double quote (")'],
  ["echo $'a", "unterminated $'…' quote"],
  ["echo $(a", 'unterminated "$(" command substitution'],
  ["echo `a", "unterminated backtick (`) command substitution"],
  ["echo ${a", 'unterminated "${" parameter expansion'],
  ["echo $((1 + 2)", 'unterminated "((" arithmetic'],
  ["(a; b", 'unterminated "(" subshell started at offset 0'],
  ["{ a; b", 'unterminated "{" group started at offset 0'],
  ["while a; do b", '"while" at offset 0 has no "done"'],
  ["for x in 1; b", '"for" at offset 0 has no "do"'],
  ["if a; then b", '"if" at offset 0 has no "fi"'],
  ["case x in a) b;;", '"case" at offset 0 has no "esac"'],
  ["[[ -f x", 'unterminated "[[" at offset 0'],
  ["a | | b", 'unexpected "|"'],
  ["a >", 'redirection ">" at offset 2 has no target'],
  ["a )", 'unexpected ")"'],
  ["diff <(a", 'unterminated "<(" process substitution'],
];

for (const [source, error] of ERRORS) {
  Deno.test(`parseCommandLine refuses to guess at ${JSON.stringify(source)}`, () => {
    const parsed = parseCommandLine(source);
    assert(!parsed.ok, "expected a parse error");
    assertEquals(parsed.error, error);
  });
}

Deno.test("absurdly deep nesting is refused as a parse error, not a crash", () => {
  const deep = "echo " + "$(".repeat(20000) + "x" + ")".repeat(20000);
  const parsed = parseCommandLine(deep);
  assert(!parsed.ok);
  assertEquals(parsed.error, "the command line nests too deeply to be judged");
});

Deno.test("splitWords splits an argument string the way the shell would", () => {
  assertEquals(splitWords(`grep -r 'a b' "c"`)?.map((w) => w.value), ["grep", "-r", "a b", "c"]);
  assertEquals(splitWords("a; b"), undefined);
});

Deno.test("property: any input either parses or reports an error, never throws", () => {
  const alphabet = fc.constantFrom(
    ..."ab $()`'\"\\;&|<>{}#\n\t=!*[]-~".split(""),
    "<<EOF\n",
    "EOF",
    "$((",
    "if ",
    " then ",
    " fi",
    "do ",
    " done",
  );
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
      const result = parseCommandLine(parts.join(""));
      return result.ok || (typeof result.error === "string" && result.offset >= 0);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: single-quoted text is one word, whatever it contains", () => {
  fc.assert(
    fc.property(fc.string().filter((s) => !s.includes("'")), (text) => {
      const cmds = commands(`echo '${text}'`);
      return cmds.length === 1 && cmds[0]!.words.length === 2 && cmds[0]!.words[1]!.value === text;
    }),
  );
});

Deno.test("property: n simple commands joined by ; && || or newlines give n commands", () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/).filter((w) =>
    ![
      "if",
      "then",
      "else",
      "elif",
      "fi",
      "do",
      "done",
      "while",
      "until",
      "for",
      "case",
      "esac",
      "in",
      "select",
      "function",
    ]
      .includes(w)
  );
  const sep = fc.constantFrom("; ", " && ", " || ", "\n", " & ", " | ");
  fc.assert(
    fc.property(fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 8 }), (items) => {
      const source = items.map(([w, s], i) => i < items.length - 1 ? w + s : w).join("");
      return commands(source).length === items.length;
    }),
  );
});
