// The tokenizer under the shell parser: operators, redirections and words with quotes removed
// and expansions kept as source text. Command and process substitutions re-enter the grammar
// through parseNested/parseBackticks, which the Parser (the subclass) supplies.

import { readAnsiC } from "./ansi_c.ts";
import { type PendingHeredoc, readHeredocBodies } from "./heredoc.ts";
import { ShellSyntaxError, type Word } from "./syntax.ts";

export type Token =
  | { t: "word"; word: Word; start: number; end: number }
  | { t: "op"; op: string; start: number; end: number }
  | { t: "redir"; op: string; fd?: number; start: number; end: number }
  | { t: "eof"; start: number; end: number };

// Longest first: the lexer takes the first operator the text starts with.
const OPERATORS = ";;& <<< <<- &>> && || ;; ;& |& &> << >> <& >& <> >| (( ; & | ( ) < >".split(" ");
const REDIRECT_OPS = new Set("<<< <<- &>> &> << >> <& >& <> >| < >".split(" "));
const METACHARS = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

// Characters with no special meaning inside a word (see lexWord for the others).
const PLAIN_RUN = /[^ \t\n;&|()<>\\'"$`*?[]+/y;

export abstract class Lexer {
  pos = 0;
  protected peeked: Token | undefined;
  /** Heredocs started on the current line; their bodies are read at its newline. */
  protected pending: PendingHeredoc[] = [];

  constructor(readonly src: string, readonly base: number) {}

  /** Parses the commands of `$( … )` or `<( … )` in place, up to the closing parenthesis. */
  protected abstract parseNested(openedAt: number, close: string, error: string): void;

  /** Parses the text inside backticks (unescaped) as its own line starting at offset `base`. */
  protected abstract parseBackticks(inner: string, base: number): void;

  protected fail(message: string, offset: number): never {
    throw new ShellSyntaxError(message, this.base + offset);
  }

  protected peek(): Token {
    if (!this.peeked) this.peeked = this.lex();
    return this.peeked;
  }

  protected next(): Token {
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
      const pending = this.pending;
      this.pending = [];
      this.pos = readHeredocBodies(src, this.pos, pending);
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
      if (c === "\\" || c === "'" || c === '"' || c === "$") {
        this.lexQuotedPart(word, c);
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

  /**
   * One part of a word that starts with a backslash, a quote or `$` (at `this.pos`): appends its
   * value to `word` and moves past it.
   */
  private lexQuotedPart(word: Word, c: "\\" | "'" | '"' | "$"): void {
    const src = this.src;
    const n = src[this.pos + 1];
    if (c === "\\") {
      if (n === "\n") { // a line continuation: nothing
        this.pos += 2;
        return;
      }
      word.quoted = true;
      word.value += n ?? "\\";
      this.pos += n === undefined ? 1 : 2;
    } else if (c === "'") {
      const close = src.indexOf("'", this.pos + 1);
      if (close < 0) this.fail(`unterminated single quote (')`, this.pos);
      word.value += src.slice(this.pos + 1, close);
      word.quoted = true;
      this.pos = close + 1;
    } else if (c === '"') {
      this.pos++;
      word.value += this.readDoubleQuoted(word, this.pos - 1);
      word.quoted = true;
    } else if (n === "'") {
      const ansi = readAnsiC(src, this.pos);
      if (!ansi) this.fail(`unterminated $'…' quote`, this.pos);
      word.value += ansi.value;
      word.quoted = true;
      this.pos = ansi.end;
    } else if (n === '"') {
      this.pos += 2;
      word.value += this.readDoubleQuoted(word, this.pos - 2);
      word.quoted = true;
    } else {
      word.value += this.readDollar(word);
    }
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
    this.parseBackticks(inner, this.base + from + 1);
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
      if (this.skipQuoting(scratch)) continue;
      const c = src[this.pos]!;
      if (c === "$") this.readDollar(scratch);
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
  protected closesAsArithmetic(openAt: number): boolean {
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

  /** this.pos at the first of two opening parentheses; moves past the matching `))`. */
  protected skipArithmeticAt(openedAt: number): void {
    this.skipBalanced("(", ")", `unterminated "((" arithmetic`, openedAt);
  }

  private skipBalanced(open: string, close: string, error: string, openedAt = this.pos): void {
    const src = this.src;
    let depth = 0;
    const scratch: Word = { raw: "", value: "", quoted: false, expands: false, glob: false };
    for (;;) {
      if (this.pos >= src.length) this.fail(error, openedAt);
      if (this.skipQuoting(scratch)) continue;
      const c = src[this.pos]!;
      if (c === "$" && src[this.pos + 1] === "(" && src[this.pos + 2] !== "(") {
        this.readDollar(scratch);
      } else {
        this.pos++;
        if (c === open) depth++;
        else if (c === close && --depth === 0) return;
      }
    }
  }

  /**
   * Inside `${…}` or a balanced `(…)` that is skipped rather than parsed: steps over an escape,
   * a quoted string or a backtick substitution at `pos` (substitutions still yield their
   * commands). False when the character starts none of these.
   */
  private skipQuoting(scratch: Word): boolean {
    const src = this.src;
    const c = src[this.pos];
    if (c === "\\") this.pos += 2;
    else if (c === "'") {
      const close = src.indexOf("'", this.pos + 1);
      if (close < 0) this.fail(`unterminated single quote (')`, this.pos);
      this.pos = close + 1;
    } else if (c === '"') {
      this.pos++;
      this.readDoubleQuoted(scratch, this.pos - 1);
    } else if (c === "`") this.readBackticks(scratch);
    else return false;
    return true;
  }
}
