// Shell command-line parsing for the shell policy: splits a bash command line into the simple
// commands it would run (through lists, pipelines, subshells, groups, loops, $( ), backticks,
// process substitution) with quotes removed. Pure: it reads text and never spawns a shell.

/** One word of a command after quote removal. */
export interface Word {
  /** The word as written in the source. */
  raw: string;
  /** The word after quote and escape removal; expansions are kept as their source text. */
  value: string;
  /** Some part was quoted or escaped (so it is never a reserved word or an assignment). */
  quoted: boolean;
  /** The value depends on an expansion (`$x`, `${x}`, `$(…)`, backticks): not a literal. */
  expands: boolean;
  /** An unquoted glob character (`*`, `?`, `[`) appears in it. */
  glob: boolean;
}

export interface Redirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-` or `<<<`. */
  op: string;
  /** The file descriptor written before the operator (`2>`), if any. */
  fd?: number;
  /** The target word; for a heredoc, its delimiter. */
  target: Word;
  /** A heredoc's body: data, never parsed as commands. */
  body?: string;
}

/** A simple command: optional assignments, words, redirections. */
export interface SimpleCommand {
  /** The command as written (a slice of the source it was parsed from). */
  text: string;
  /** Offset of the command in the outermost command line (for ordering). */
  offset: number;
  assignments: Word[];
  words: Word[];
  redirects: Redirect[];
  /** Position in its own pipeline (0 = first program) and the pipeline's length. */
  pipelineIndex: number;
  pipelineLength: number;
  /** Its standard input is a pipe: it is a later stage, or inside a compound that is one. */
  fed: boolean;
  /** Inside the condition or body of a `while`, `until`, `for` or `select` loop. */
  inLoop: boolean;
  /** Started in the background with `&` (alone or inside a backgrounded compound). */
  background: boolean;
  /** Inside a command substitution, backticks or a process substitution. */
  inSubstitution: boolean;
}

export type ParseResult =
  | { ok: true; commands: SimpleCommand[] }
  | { ok: false; error: string; offset: number };

/** Refusal to guess: the input is not a complete bash command line. */
export class ShellSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
    this.name = "ShellSyntaxError";
  }
}

/**
 * Parses `source` into its simple commands, ordered by where they start. Unbalanced quotes,
 * an unterminated `$(`, `${`, backtick, `( … )`, `{ … }`, loop or `if` are reported as an error
 * instead of being guessed at.
 */
export function parseCommandLine(source: string): ParseResult {
  try {
    const parser = new Parser(source, 0, INITIAL_CONTEXT);
    parser.parseProgram();
    const commands = [...parser.out].sort((a, b) => a.offset - b.offset);
    return { ok: true, commands };
  } catch (e) {
    if (e instanceof ShellSyntaxError) return { ok: false, error: e.message, offset: e.offset };
    // Thousands of nested $( ( { levels exhaust the stack: refuse rather than crash.
    if (e instanceof RangeError) {
      return { ok: false, error: "the command line nests too deeply to be judged", offset: 0 };
    }
    throw e;
  }
}

/** Splits a plain argument string into words the way the shell would (used for `env -S`). */
export function splitWords(source: string): Word[] | undefined {
  const parsed = parseCommandLine(source);
  if (!parsed.ok || parsed.commands.length !== 1) return undefined;
  const only = parsed.commands[0]!;
  return [...only.assignments, ...only.words];
}

interface Context {
  inLoop: boolean;
  fed: boolean;
  inSubstitution: boolean;
}

const INITIAL_CONTEXT: Context = { inLoop: false, fed: false, inSubstitution: false };

type Token =
  | { t: "word"; word: Word; start: number; end: number }
  | { t: "op"; op: string; start: number; end: number }
  | { t: "redir"; op: string; fd?: number; start: number; end: number }
  | { t: "eof"; start: number; end: number };

// Longest first: the lexer takes the first operator the text starts with.
const OPERATORS = [
  ";;&",
  "<<<",
  "<<-",
  "&>>",
  "&&",
  "||",
  ";;",
  ";&",
  "|&",
  "&>",
  "<<",
  ">>",
  "<&",
  ">&",
  "<>",
  ">|",
  "((",
  ";",
  "&",
  "|",
  "(",
  ")",
  "<",
  ">",
];
const REDIRECT_OPS = new Set([
  "<<<",
  "<<-",
  "&>>",
  "&>",
  "<<",
  ">>",
  "<&",
  ">&",
  "<>",
  ">|",
  "<",
  ">",
]);
const METACHARS = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const CASE_ENDS = new Set([";;", ";&", ";;&"]);
const ANSI_C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

// Characters with no special meaning inside a word (see lexWord for the others).
const PLAIN_RUN = /[^ \t\n;&|()<>\\'"$`*?[]+/y;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

interface PendingHeredoc {
  redirect: Redirect;
  stripTabs: boolean;
}

class Parser {
  pos = 0;
  out: SimpleCommand[] = [];
  private peeked: Token | undefined;
  private pending: PendingHeredoc[] = [];
  private ctx: Context;

  constructor(readonly src: string, readonly base: number, ctx: Context) {
    this.ctx = { ...ctx };
  }

  // ---- grammar ---------------------------------------------------------------------------

  parseProgram(): void {
    this.parseList(() => false);
    const tok = this.peek();
    if (tok.t !== "eof") {
      const what = tok.t === "op" ? tok.op : tok.t === "word" ? tok.word.raw : tok.op;
      this.fail(`unexpected "${what}"`, tok.start);
    }
  }

  /** A list of and-or lists separated by `;`, `&` or newlines, up to a terminator. */
  private parseList(isEnd: (tok: Token) => boolean): void {
    for (;;) {
      const tok = this.peek();
      if (tok.t === "eof" || isEnd(tok)) return;
      if (tok.t === "op" && (tok.op === "\n" || tok.op === ";")) {
        this.next();
        continue;
      }
      if (tok.t === "op" && (tok.op === ")" || CASE_ENDS.has(tok.op) || tok.op === "&")) return;
      const first = this.out.length;
      this.parseAndOr();
      const sep = this.peek();
      if (sep.t === "op" && sep.op === "&") {
        this.next();
        for (let i = first; i < this.out.length; i++) this.out[i]!.background = true;
      }
    }
  }

  private parseAndOr(): void {
    this.parsePipeline();
    for (;;) {
      const tok = this.peek();
      if (tok.t !== "op" || (tok.op !== "&&" && tok.op !== "||")) return;
      this.next();
      this.skipNewlines();
      this.parsePipeline();
    }
  }

  private parsePipeline(): void {
    // `!` and the `time [-p]` keyword prefix a whole pipeline (`time (make && make test)`).
    if (isReserved(this.peek(), "!")) this.next();
    if (isReserved(this.peek(), "time")) {
      this.next();
      if (isReserved(this.peek(), "-p")) this.next();
      if (isReserved(this.peek(), "!")) this.next();
    }
    const stages: SimpleCommand[][] = [];
    const outerFed = this.ctx.fed;
    for (let index = 0;; index++) {
      const first = this.out.length;
      const saved = this.ctx;
      this.ctx = { ...saved, fed: outerFed || index > 0 };
      this.parseCommand(index);
      this.ctx = saved;
      stages.push(this.out.slice(first));
      const sep = this.peek();
      if (sep.t !== "op" || (sep.op !== "|" && sep.op !== "|&")) break;
      this.next();
      this.skipNewlines();
    }
    for (const stage of stages) {
      for (const cmd of stage) if (cmd.pipelineLength === -1) cmd.pipelineLength = stages.length;
    }
  }

  private parseCommand(index: number): void {
    const tok = this.peek();
    if (tok.t === "op" && tok.op === "((") {
      this.next();
      if (this.closesAsArithmetic(tok.start)) {
        this.skipArithmetic(tok.start);
        this.parseTrailingRedirects();
        return;
      }
      // `((cd a && make) || echo failed)`: two subshells, not arithmetic; the commands count.
      this.pos = tok.start + 1;
      this.parseList((t) => t.t === "op" && t.op === ")");
      this.expectOp(")", `unterminated "(" subshell started at offset ${tok.start}`);
      this.parseTrailingRedirects();
      return;
    }
    if (tok.t === "op" && tok.op === "(") {
      this.next();
      this.parseList((t) => t.t === "op" && t.op === ")");
      this.expectOp(")", `unterminated "(" subshell started at offset ${tok.start}`);
      this.parseTrailingRedirects();
      return;
    }
    if (tok.t === "word" && !tok.word.quoted) {
      switch (tok.word.value) {
        case "{":
          this.next();
          this.parseList((t) => isReserved(t, "}"));
          this.expectWord("}", `unterminated "{" group started at offset ${tok.start}`);
          this.parseTrailingRedirects();
          return;
        case "while":
        case "until":
          this.next();
          this.inLoop(() => {
            this.parseList((t) => isReserved(t, "do"));
            this.expectWord("do", `"${tok.word.value}" at offset ${tok.start} has no "do"`);
            this.parseList((t) => isReserved(t, "done"));
            this.expectWord("done", `"${tok.word.value}" at offset ${tok.start} has no "done"`);
          });
          this.parseTrailingRedirects();
          return;
        case "for":
        case "select":
          this.next();
          this.parseFor(tok.word.value, tok.start);
          this.parseTrailingRedirects();
          return;
        case "if":
          this.next();
          this.parseIf(tok.start);
          this.parseTrailingRedirects();
          return;
        case "case":
          this.next();
          this.parseCase(tok.start);
          this.parseTrailingRedirects();
          return;
        case "function":
          this.next();
          this.next(); // the name
          this.skipParens();
          this.skipNewlines();
          this.parseCommand(index);
          return;
        case "[[":
          this.next();
          this.skipTest(tok.start);
          this.parseTrailingRedirects();
          return;
      }
    }
    this.parseSimple(index);
  }

  private parseSimple(index: number): void {
    const start = this.peek().start;
    let end = start;
    const assignments: Word[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok.t === "word") {
        this.next();
        end = tok.end;
        if (words.length === 0 && !tok.word.raw.startsWith("=") && ASSIGNMENT.test(tok.word.raw)) {
          assignments.push(tok.word);
        } else {
          words.push(tok.word);
        }
        continue;
      }
      if (tok.t === "redir") {
        this.next();
        redirects.push(this.parseRedirectTarget(tok));
        end = this.lastEnd;
        continue;
      }
      // `name () compound`: a function definition; its body runs only when called, but judge
      // it anyway since it is about to be called in the same line more often than not.
      if (
        tok.t === "op" && tok.op === "(" && words.length === 1 && assignments.length === 0 &&
        redirects.length === 0
      ) {
        this.next();
        this.expectOp(")", `expected ")" after function name "${words[0]!.raw}"`);
        this.skipNewlines();
        this.parseCommand(index);
        return;
      }
      break;
    }
    if (words.length === 0 && assignments.length === 0 && redirects.length === 0) {
      const tok = this.peek();
      if (tok.t === "eof") return;
      const what = tok.t === "op" || tok.t === "redir" ? tok.op : "";
      this.fail(`unexpected "${what}"`, tok.start);
    }
    this.out.push({
      text: this.src.slice(start, end),
      offset: this.base + start,
      assignments,
      words,
      redirects,
      pipelineIndex: index,
      pipelineLength: -1,
      fed: this.ctx.fed,
      inLoop: this.ctx.inLoop,
      background: false,
      inSubstitution: this.ctx.inSubstitution,
    });
  }

  private lastEnd = 0;

  private parseRedirectTarget(tok: Token & { t: "redir" }): Redirect {
    const target = this.next();
    if (target.t !== "word") {
      this.fail(`redirection "${tok.op}" at offset ${tok.start} has no target`, tok.start);
    }
    this.lastEnd = target.end;
    const redirect: Redirect = { op: tok.op, target: target.word };
    if (tok.fd !== undefined) redirect.fd = tok.fd;
    if (tok.op === "<<" || tok.op === "<<-") {
      this.pending.push({ redirect, stripTabs: tok.op === "<<-" });
    }
    return redirect;
  }

  private parseTrailingRedirects(): void {
    for (;;) {
      const tok = this.peek();
      if (tok.t !== "redir") return;
      this.next();
      this.parseRedirectTarget(tok);
    }
  }

  private parseFor(keyword: string, start: number): void {
    const tok = this.peek();
    if (tok.t === "op" && tok.op === "((") {
      this.next();
      this.skipArithmetic(tok.start);
    } else {
      const name = this.next();
      if (name.t !== "word") this.fail(`"${keyword}" at offset ${start} needs a variable`, start);
      this.skipNewlines();
      if (isReserved(this.peek(), "in")) {
        this.next();
        for (;;) {
          const w = this.peek();
          if (w.t !== "word") break;
          this.next();
        }
      }
    }
    for (;;) {
      const sep = this.peek();
      if (sep.t === "op" && (sep.op === ";" || sep.op === "\n")) this.next();
      else break;
    }
    this.inLoop(() => {
      if (isReserved(this.peek(), "{")) {
        this.next();
        this.parseList((t) => isReserved(t, "}"));
        this.expectWord("}", `"${keyword}" at offset ${start} has no closing "}"`);
        return;
      }
      this.expectWord("do", `"${keyword}" at offset ${start} has no "do"`);
      this.parseList((t) => isReserved(t, "done"));
      this.expectWord("done", `"${keyword}" at offset ${start} has no "done"`);
    });
  }

  private parseIf(start: number): void {
    const missing = (what: string) => `"if" at offset ${start} has no "${what}"`;
    this.parseList((t) => isReserved(t, "then"));
    this.expectWord("then", missing("then"));
    for (;;) {
      this.parseList((t) => isReserved(t, "elif", "else", "fi"));
      const tok = this.peek();
      if (isReserved(tok, "elif")) {
        this.next();
        this.parseList((t) => isReserved(t, "then"));
        this.expectWord("then", missing("then"));
        continue;
      }
      if (isReserved(tok, "else")) {
        this.next();
        this.parseList((t) => isReserved(t, "fi"));
      }
      this.expectWord("fi", missing("fi"));
      return;
    }
  }

  private parseCase(start: number): void {
    const subject = this.next();
    if (subject.t !== "word") this.fail(`"case" at offset ${start} needs a word`, start);
    this.skipNewlines();
    this.expectWord("in", `"case" at offset ${start} has no "in"`);
    for (;;) {
      this.skipNewlines();
      const tok = this.peek();
      if (isReserved(tok, "esac")) {
        this.next();
        return;
      }
      if (tok.t === "eof") this.fail(`"case" at offset ${start} has no "esac"`, start);
      if (tok.t === "op" && tok.op === "(") this.next();
      // Patterns: words separated by `|`, up to `)`.
      for (;;) {
        const p = this.next();
        if (p.t === "op" && p.op === ")") break;
        if (p.t === "eof") {
          this.fail(`"case" at offset ${start} has an unterminated pattern`, start);
        }
      }
      this.parseList((t) => isReserved(t, "esac"));
      const end = this.peek();
      if (end.t === "op" && CASE_ENDS.has(end.op)) this.next();
    }
  }

  private inLoop(body: () => void): void {
    const saved = this.ctx;
    this.ctx = { ...saved, inLoop: true };
    body();
    this.ctx = saved;
  }

  /** `[[ … ]]`: its operands are words (their substitutions are parsed as they are lexed). */
  private skipTest(start: number): void {
    for (;;) {
      const tok = this.next();
      if (tok.t === "eof") this.fail(`unterminated "[[" at offset ${start}`, start);
      if (isReserved(tok, "]]")) return;
    }
  }

  private skipParens(): void {
    const tok = this.peek();
    if (tok.t === "op" && tok.op === "(") {
      this.next();
      this.expectOp(")", `expected ")" in a function definition`);
    }
  }

  private skipNewlines(): void {
    for (;;) {
      const tok = this.peek();
      if (tok.t === "op" && tok.op === "\n") this.next();
      else return;
    }
  }

  private expectOp(op: string, error: string): void {
    const tok = this.next();
    if (tok.t !== "op" || tok.op !== op) this.fail(error, tok.start);
  }

  private expectWord(word: string, error: string): void {
    const tok = this.next();
    if (!isReserved(tok, word)) this.fail(error, tok.start);
  }

  private fail(message: string, offset: number): never {
    throw new ShellSyntaxError(message, this.base + offset);
  }

  // ---- lexer -----------------------------------------------------------------------------

  private peek(): Token {
    if (!this.peeked) this.peeked = this.lex();
    return this.peeked;
  }

  private next(): Token {
    const tok = this.peek();
    this.peeked = undefined;
    return tok;
  }

  private lex(): Token {
    const src = this.src;
    for (;;) {
      const c = src[this.pos];
      if (c === " " || c === "\t" || c === "\r") this.pos++;
      else if (c === "\\" && src[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#") {
        while (this.pos < src.length && src[this.pos] !== "\n") this.pos++;
      } else break;
    }
    const start = this.pos;
    if (start >= src.length) return { t: "eof", start, end: start };
    if (src[start] === "\n") {
      this.pos++;
      this.readHeredocBodies();
      return { t: "op", op: "\n", start, end: start + 1 };
    }
    if ((src[start] === "<" || src[start] === ">") && src[start + 1] === "(") {
      return this.lexWord();
    }
    for (const op of OPERATORS) {
      if (src.startsWith(op, start)) {
        this.pos += op.length;
        if (REDIRECT_OPS.has(op)) return { t: "redir", op, start, end: this.pos };
        return { t: "op", op, start, end: this.pos };
      }
    }
    return this.lexWord();
  }

  private lexWord(): Token {
    const src = this.src;
    const start = this.pos;
    const word: Word = { raw: "", value: "", quoted: false, expands: false, glob: false };
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if ((c === "<" || c === ">") && src[this.pos + 1] === "(") {
        // Process substitution: its contents run as commands.
        const from = this.pos;
        this.pos += 2;
        this.parseNested(from, ")", `unterminated "${c}(" process substitution`);
        word.value += src.slice(from, this.pos);
        word.expands = true;
        continue;
      }
      if (METACHARS.has(c)) {
        // `name=(a b c)`: an array assignment keeps its parenthesised list in the word.
        if (
          c === "(" && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/.test(src.slice(start, this.pos))
        ) {
          const from = this.pos;
          this.skipBalanced("(", ")", `unterminated array assignment`);
          word.value += src.slice(from, this.pos);
          continue;
        }
        break;
      }
      if (c === "\\") {
        const n = src[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        word.quoted = true;
        word.value += n ?? "\\";
        this.pos += n === undefined ? 1 : 2;
        continue;
      }
      if (c === "'") {
        const close = src.indexOf("'", this.pos + 1);
        if (close < 0) this.fail(`unterminated single quote (')`, this.pos);
        word.value += src.slice(this.pos + 1, close);
        word.quoted = true;
        this.pos = close + 1;
        continue;
      }
      if (c === '"') {
        this.pos++;
        word.value += this.readDoubleQuoted(word, this.pos - 1);
        word.quoted = true;
        continue;
      }
      if (c === "$") {
        const n = src[this.pos + 1];
        if (n === "'") {
          word.value += this.readAnsiC();
          word.quoted = true;
          continue;
        }
        if (n === '"') {
          this.pos += 2;
          word.value += this.readDoubleQuoted(word, this.pos - 2);
          word.quoted = true;
          continue;
        }
        word.value += this.readDollar(word);
        continue;
      }
      if (c === "`") {
        word.value += this.readBackticks(word);
        continue;
      }
      if (c === "*" || c === "?" || c === "[") {
        word.glob = true;
        word.value += c;
        this.pos++;
        continue;
      }
      // A run of ordinary characters in one step (long words would be slow char by char).
      PLAIN_RUN.lastIndex = this.pos;
      const run = PLAIN_RUN.exec(src);
      const text = run ? run[0] : c;
      word.value += text;
      this.pos += text.length;
    }
    word.raw = src.slice(start, this.pos);
    const end = this.pos;
    // `2>file`, `2>&1`: digits right before a redirection operator are its file descriptor.
    const n = src[this.pos];
    if ((n === "<" || n === ">") && /^\d+$/.test(word.raw) && src[this.pos + 1] !== "(") {
      // `<` or `>` not followed by `(` always lexes as a redirection operator.
      const tok = this.lex();
      if (tok.t === "redir") {
        return { t: "redir", op: tok.op, fd: Number(word.raw), start, end: tok.end };
      }
    }
    return { t: "word", word, start, end };
  }

  /** Reads after an opening `"` up to the closing one; returns the unquoted text. */
  private readDoubleQuoted(word: Word, openedAt: number): string {
    const src = this.src;
    let value = "";
    for (;;) {
      if (this.pos >= src.length) this.fail(`unterminated double quote (")`, openedAt);
      const c = src[this.pos]!;
      if (c === '"') {
        this.pos++;
        return value;
      }
      if (c === "\\") {
        const n = src[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        if (n !== undefined && '$`"\\'.includes(n)) {
          value += n;
          this.pos += 2;
          continue;
        }
        value += c;
        this.pos++;
        continue;
      }
      if (c === "$") {
        value += this.readDollar(word);
        continue;
      }
      if (c === "`") {
        value += this.readBackticks(word);
        continue;
      }
      value += c;
      this.pos++;
    }
  }

  /** `$'…'`: backslash escapes, no expansions. */
  private readAnsiC(): string {
    const src = this.src;
    const openedAt = this.pos;
    this.pos += 2;
    let value = "";
    for (;;) {
      if (this.pos >= src.length) this.fail(`unterminated $'…' quote`, openedAt);
      const c = src[this.pos]!;
      if (c === "'") {
        this.pos++;
        return value;
      }
      if (c === "\\" && this.pos + 1 < src.length) {
        // Numeric escapes too: `$'\x63at'` is `cat`, and must be judged as cat.
        const numeric =
          /^(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3}))/
            .exec(src.slice(this.pos + 1, this.pos + 10));
        if (numeric) {
          const hex = numeric[1] ?? numeric[2] ?? numeric[3];
          const code = hex !== undefined ? parseInt(hex, 16) : parseInt(numeric[4]!, 8);
          value += code <= 0x10ffff ? String.fromCodePoint(code) : "";
          this.pos += 1 + numeric[0].length;
          continue;
        }
        const n = src[this.pos + 1]!;
        value += ANSI_C_ESCAPES[n] ?? `\\${n}`;
        this.pos += 2;
        continue;
      }
      value += c;
      this.pos++;
    }
  }

  /** At a `$`: parameter, `${…}`, `$(…)` or `$((…))`. Returns its source text. */
  private readDollar(word: Word): string {
    const src = this.src;
    const from = this.pos;
    const n = src[this.pos + 1];
    if (n === "(" && src[this.pos + 2] === "(" && this.closesAsArithmetic(this.pos + 1)) {
      this.pos += 1;
      this.skipArithmeticAt(from);
      word.expands = true;
      return src.slice(from, this.pos);
    }
    if (n === "(") {
      this.pos += 2;
      this.parseNested(from, ")", `unterminated "$(" command substitution`);
      word.expands = true;
      return src.slice(from, this.pos);
    }
    if (n === "{") {
      this.pos += 2;
      this.skipParameter(from);
      word.expands = true;
      return src.slice(from, this.pos);
    }
    if (n !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(n)) {
      this.pos += 2;
      if (/[A-Za-z_]/.test(n)) {
        while (this.pos < src.length && /[A-Za-z0-9_]/.test(src[this.pos]!)) this.pos++;
      }
      word.expands = true;
      return src.slice(from, this.pos);
    }
    this.pos++;
    return "$";
  }

  /** Parses the commands of `$( … )` or `<( … )` in place, up to the closing parenthesis. */
  private parseNested(openedAt: number, close: string, error: string): void {
    const savedCtx = this.ctx;
    const savedPeek = this.peeked;
    this.peeked = undefined;
    this.ctx = { inLoop: savedCtx.inLoop, fed: false, inSubstitution: true };
    this.parseList((t) => t.t === "op" && t.op === close);
    const tok = this.next();
    if (tok.t !== "op" || tok.op !== close) this.fail(error, openedAt);
    this.ctx = savedCtx;
    this.peeked = savedPeek;
  }

  /** Backticks: the old form of command substitution; the inside is parsed as its own line. */
  private readBackticks(word: Word): string {
    const src = this.src;
    const from = this.pos;
    let inner = "";
    let i = this.pos + 1;
    for (;;) {
      if (i >= src.length) this.fail("unterminated backtick (`) command substitution", from);
      const c = src[i]!;
      if (c === "`") break;
      if (c === "\\" && i + 1 < src.length && "$`\\".includes(src[i + 1]!)) {
        inner += src[i + 1];
        i += 2;
        continue;
      }
      inner += c;
      i++;
    }
    this.pos = i + 1;
    const nested = new Parser(inner, this.base + from + 1, {
      ...this.ctx,
      fed: false,
      inSubstitution: true,
    });
    nested.parseProgram();
    this.out.push(...nested.out);
    word.expands = true;
    return src.slice(from, this.pos);
  }

  /** After `${`: up to the matching `}`, parsing any substitutions inside. */
  private skipParameter(openedAt: number): void {
    const src = this.src;
    let depth = 1;
    const scratch: Word = { raw: "", value: "", quoted: false, expands: false, glob: false };
    while (depth > 0) {
      if (this.pos >= src.length) this.fail(`unterminated "\${" parameter expansion`, openedAt);
      const c = src[this.pos]!;
      if (c === "\\") this.pos += 2;
      else if (c === "'") {
        const close = src.indexOf("'", this.pos + 1);
        if (close < 0) this.fail(`unterminated single quote (')`, this.pos);
        this.pos = close + 1;
      } else if (c === '"') {
        this.pos++;
        this.readDoubleQuoted(scratch, this.pos - 1);
      } else if (c === "$") this.readDollar(scratch);
      else if (c === "`") this.readBackticks(scratch);
      else {
        if (c === "{") depth++;
        if (c === "}") depth--;
        this.pos++;
      }
    }
  }

  /**
   * bash reads `((` (and `$((`) as arithmetic only when the inner parenthesis closes right
   * before the outer one; `((cat x) | wc -l)` is a subshell holding a subshell.
   */
  private closesAsArithmetic(openAt: number): boolean {
    const src = this.src;
    let depth = 0;
    for (let i = openAt + 1; i < src.length; i++) {
      const c = src[i];
      if (c === "\\") i++;
      else if (c === "'" || c === '"') {
        const close = src.indexOf(c, i + 1);
        if (close < 0) return true; // unterminated: the arithmetic scan reports it
        i = close;
      } else if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return src[i + 1] === ")" || i + 1 === src.length;
    }
    return true;
  }

  /** At `((` (this.pos on the first parenthesis... or after `((` for the command form). */
  private skipArithmetic(openedAt: number): void {
    // The command form: the lexer already consumed "((".
    this.pos -= 2;
    this.skipArithmeticAt(openedAt);
  }

  /** this.pos at the first of two opening parentheses; moves past the matching `))`. */
  private skipArithmeticAt(openedAt: number): void {
    this.skipBalanced("(", ")", `unterminated "((" arithmetic`, openedAt);
  }

  private skipBalanced(open: string, close: string, error: string, openedAt = this.pos): void {
    const src = this.src;
    let depth = 0;
    const scratch: Word = { raw: "", value: "", quoted: false, expands: false, glob: false };
    for (;;) {
      if (this.pos >= src.length) this.fail(error, openedAt);
      const c = src[this.pos]!;
      if (c === "\\") this.pos += 2;
      else if (c === "'") {
        const closeAt = src.indexOf("'", this.pos + 1);
        if (closeAt < 0) this.fail(`unterminated single quote (')`, this.pos);
        this.pos = closeAt + 1;
      } else if (c === '"') {
        this.pos++;
        this.readDoubleQuoted(scratch, this.pos - 1);
      } else if (c === "$" && src[this.pos + 1] === "(" && src[this.pos + 2] !== "(") {
        this.readDollar(scratch);
      } else if (c === "`") this.readBackticks(scratch);
      else {
        this.pos++;
        if (c === open) depth++;
        else if (c === close && --depth === 0) return;
      }
    }
  }

  /** After the newline that ends a line with heredocs: their bodies are data, skipped. */
  private readHeredocBodies(): void {
    const src = this.src;
    const pending = this.pending;
    this.pending = [];
    for (const { redirect, stripTabs } of pending) {
      const delimiter = redirect.target.value;
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= src.length) break; // bash runs it with a warning: body up to the end
        let eol = src.indexOf("\n", this.pos);
        if (eol < 0) eol = src.length;
        let line = src.slice(this.pos, eol);
        this.pos = Math.min(eol + 1, src.length);
        if (stripTabs) line = line.replace(/^\t+/, "");
        if (line === delimiter || line.replace(/\r$/, "") === delimiter) break;
        lines.push(line);
      }
      redirect.body = lines.join("\n");
    }
  }
}

function isReserved(tok: Token, ...words: string[]): boolean {
  return tok.t === "word" && !tok.word.quoted && words.includes(tok.word.value);
}
