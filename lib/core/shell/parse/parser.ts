// The shell grammar: lists, and-or lists, pipelines, subshells, groups, loops, if, case and
// function definitions, down to simple commands with the context they run in. Tokens come from
// the Lexer it extends; substitutions found while lexing are parsed here, in place.

import { Lexer, type Token } from "./lexer.ts";
import type { Redirect, SimpleCommand, Word } from "./syntax.ts";

/** Where the commands being parsed run: what each SimpleCommand records. */
interface Context {
  inLoop: boolean;
  fed: boolean;
  inSubstitution: boolean;
}

export const INITIAL_CONTEXT: Context = { inLoop: false, fed: false, inSubstitution: false };

const CASE_ENDS = new Set([";;", ";&", ";;&"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

export class Parser extends Lexer {
  out: SimpleCommand[] = [];
  private ctx: Context;

  constructor(src: string, base: number, ctx: Context) {
    super(src, base);
    this.ctx = { ...ctx };
  }

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

  /** At `((` (this.pos on the first parenthesis... or after `((` for the command form). */
  private skipArithmetic(openedAt: number): void {
    // The command form: the lexer already consumed "((".
    this.pos -= 2;
    this.skipArithmeticAt(openedAt);
  }

  /** Parses the commands of `$( … )` or `<( … )` in place, up to the closing parenthesis. */
  protected parseNested(openedAt: number, close: string, error: string): void {
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

  protected parseBackticks(inner: string, base: number): void {
    const nested = new Parser(inner, base, { ...this.ctx, fed: false, inSubstitution: true });
    nested.parseProgram();
    this.out.push(...nested.out);
  }
}

function isReserved(tok: Token, ...words: string[]): boolean {
  return tok.t === "word" && !tok.word.quoted && words.includes(tok.word.value);
}
