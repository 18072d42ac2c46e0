// The outline's parser as the main thread sees it: tree-sitter runs in a worker
// (outline_worker.ts) started on the first outline and ended when idle, so its wasm memory (the
// runtime's and each grammar's, which never shrinks) goes back to the system; Deno keeps part of
// an ended worker's JS heap, reused by the next one (denoland/deno#26058). Bounded: one parse at
// a time, at most `maxGrammars` grammars resident (one more restarts the worker), a text size cap
// and a wall deadline per parse (past it the worker is ended and the call told so).

import { AnchorError } from "../../core/errors.ts";
import type { Language } from "../../core/outline/languages.ts";
import {
  type ParsedOutline,
  ParseTimeout,
  type SyntaxParser,
} from "../../ops/ports/syntax_parser.ts";
import type { OutlineAnswer, OutlineAsk } from "./outline_protocol.ts";
import { returnFreedMemory } from "../platform/return_memory.ts";
import { OUTLINE_WORKER_FILE } from "./wasm_files.ts";

interface TreeSitterOptions {
  /** The worker ends after this long without a parse (ANCHORFS_OUTLINE_IDLE_MS overrides). */
  idleMs?: number;
  /** A parse still running after this long ends the worker (ANCHORFS_OUTLINE_DEADLINE_MS). */
  deadlineMs?: number;
  /** Grammars the worker holds at most; a parse needing another one starts a fresh worker. */
  maxGrammars?: number;
  /** Texts longer than this (UTF-16 units) are refused before they reach the worker. */
  maxChars?: number;
}

/** Idle time before the worker (and its wasm memory, 100-300 MB with many grammars) goes. */
const IDLE_MS = 30_000;
/** A 1 MB file parses in about a second here; twenty times that is a parser stuck on it. */
const DEADLINE_MS = 20_000;
/** Grammars resident at once: a project's few languages stay loaded, a tour of all 14 does not. */
const MAX_GRAMMARS = 6;
/** The ops refuse files over 1 MiB before parsing; this is the worker's own bound. */
const MAX_CHARS = 1024 * 1024;
/**
 * After a worker ends, its thread is torn down in the background (its isolate disposed, which
 * takes from a fraction of a second to seconds under load); the pages its allocator freed are
 * then handed back (return_memory.ts). Trimmed at each of these delays after the end.
 */
const TRIM_AFTER_MS = [1_000, 3_000, 10_000];
/** How often a running parse asks the caller's stop check (a cancelled call, its deadline). */
const STOP_POLL_MS = 10;

/** What the parser has done so far (for tests and benchmarks). */
interface ParserStats {
  /** Workers started (the first outline, after idle, after a deadline or a grammar swap). */
  started: number;
  /** Workers ended because a parse needed a grammar past `maxGrammars`. */
  swapped: number;
  /** Parses that ran past the deadline. */
  timedOut: number;
  /** Workers ended after being idle. */
  idled: number;
}

interface Pending {
  text: string;
  language: Language;
  shouldStop: (() => boolean) | undefined;
  resolve(outline: ParsedOutline | null): void;
  reject(error: Error): void;
}

function envNumber(name: string): number | undefined {
  let value = NaN;
  try {
    value = Number(Deno.env.get(name) ?? "");
  } catch { /* no --allow-env: the defaults hold */ }
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

function isFileUrl(url: URL): boolean {
  if (url.protocol !== "file:") return false;
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}

/**
 * The worker's module: the bundled entry beside this code (a bundle, the npm package, a
 * compiled binary: there this code is a chunk in the bundle's anchorfs_modules/ folder, which
 * holds the worker's file too), else the source file next to this one.
 */
function workerUrl(): URL {
  const beside = new URL(`./${OUTLINE_WORKER_FILE}`, import.meta.url);
  if (isFileUrl(beside)) return beside;
  const source = "./outline_worker.ts"; // a variable: bundlers leave the URL as written
  return new URL(source, import.meta.url);
}

export class TreeSitterParser implements SyntaxParser {
  readonly idleMs: number;
  readonly deadlineMs: number;
  readonly maxGrammars: number;
  readonly maxChars: number;
  readonly stats: ParserStats = { started: 0, swapped: 0, timedOut: 0, idled: 0 };
  #worker: Worker | undefined;
  /** Grammars the current worker has loaded, least recently used first. */
  #grammars: string[] = [];
  #queue: Pending[] = [];
  #running: { pending: Pending; id: number; done(): void } | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #trimTimer: ReturnType<typeof setTimeout> | undefined;
  #nextId = 1;

  constructor(options: TreeSitterOptions = {}) {
    this.idleMs = options.idleMs ?? envNumber("ANCHORFS_OUTLINE_IDLE_MS") ?? IDLE_MS;
    this.deadlineMs = options.deadlineMs ?? envNumber("ANCHORFS_OUTLINE_DEADLINE_MS") ??
      DEADLINE_MS;
    this.maxGrammars = Math.max(1, options.maxGrammars ?? MAX_GRAMMARS);
    this.maxChars = options.maxChars ?? MAX_CHARS;
  }

  /** Whether a worker is alive (holding the runtime and `grammars`). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** The grammars the live worker holds, least recently used first. */
  get grammars(): readonly string[] {
    return [...this.#grammars];
  }

  outline(
    text: string,
    language: Language,
    shouldStop?: () => boolean,
  ): Promise<ParsedOutline | null> {
    if (text.length > this.maxChars) {
      return Promise.reject(
        new AnchorError({
          code: "FILE_TOO_LARGE",
          message: `The text is too large to outline (${text.length} characters; the outline ` +
            `parses up to ${this.maxChars}).`,
          hint: "Search it for its definitions, or read a range of its lines.",
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ text, language, shouldStop, resolve, reject });
      this.#next();
    });
  }

  /**
   * Ends the worker; the running and waiting parses give null, as stopped ones do. A later
   * outline starts a new worker.
   */
  close(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const running = this.#running;
    this.#stopWorker();
    // Closing is for the end of a process (or a test): no trim is left pending.
    if (this.#trimTimer !== undefined) clearTimeout(this.#trimTimer);
    this.#trimTimer = undefined;
    if (running) {
      running.done();
      running.pending.resolve(null);
    }
    for (const pending of this.#queue.splice(0)) pending.resolve(null);
  }

  #next(): void {
    while (!this.#running && this.#queue.length > 0) {
      const pending = this.#queue.shift()!;
      if (pending.shouldStop?.()) {
        pending.resolve(null);
        continue;
      }
      this.#start(pending);
    }
    if (!this.#running && this.#queue.length === 0) this.#idleSoon();
  }

  #start(pending: Pending): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const grammar = pending.language.grammar;
    // A grammar's wasm cannot be unloaded from a running runtime: past the bound, start afresh.
    if (!this.#grammars.includes(grammar) && this.#grammars.length >= this.maxGrammars) {
      this.stats.swapped++;
      this.#stopWorker();
    }
    const worker = this.#worker ?? this.#spawn();
    this.#grammars = [...this.#grammars.filter((g) => g !== grammar), grammar];
    const id = this.#nextId++;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    // The running parse is told to stop through `stop`; a waiting one that stops leaves the queue.
    const poll = setInterval(() => {
      if (pending.shouldStop?.()) Atomics.store(stop, 0, 1);
      this.#dropStopped();
    }, STOP_POLL_MS);
    const deadline = setTimeout(() => this.#timedOut(id), this.deadlineMs);
    this.#running = {
      pending,
      id,
      done: () => {
        clearInterval(poll);
        clearTimeout(deadline);
      },
    };
    const ask: OutlineAsk = { id, text: pending.text, language: pending.language.id, stop };
    worker.postMessage(ask);
  }

  #dropStopped(): void {
    if (!this.#queue.some((p) => p.shouldStop?.())) return;
    const stopped = this.#queue.filter((p) => p.shouldStop?.());
    this.#queue = this.#queue.filter((p) => !stopped.includes(p));
    for (const p of stopped) p.resolve(null);
  }

  #spawn(): Worker {
    const worker = new Worker(workerUrl(), { type: "module" });
    worker.onmessage = (e: MessageEvent<OutlineAnswer>) => this.#answered(e.data);
    worker.onerror = (e) => {
      // A worker that cannot load (a broken install) or crashed: the parse says why.
      e.preventDefault();
      this.#failed(new Error(`the outline's worker failed: ${e.message}`));
    };
    this.#worker = worker;
    this.#grammars = [];
    this.stats.started++;
    return worker;
  }

  #answered(answer: OutlineAnswer): void {
    const running = this.#running;
    if (!running || running.id !== answer.id) return;
    running.done();
    this.#running = undefined;
    if ("error" in answer) {
      // Not loaded after all: the next parse of this grammar tries again.
      this.#grammars = this.#grammars.filter((g) => g !== running.pending.language.grammar);
      running.pending.reject(new Error(answer.error));
    } else {
      running.pending.resolve(answer.outline);
    }
    this.#next();
  }

  #failed(error: Error): void {
    const running = this.#running;
    this.#stopWorker();
    if (running) {
      running.done();
      this.#running = undefined;
      running.pending.reject(error);
    }
    this.#next();
  }

  #timedOut(id: number): void {
    const running = this.#running;
    if (!running || running.id !== id) return;
    this.stats.timedOut++;
    // A parse past its deadline may never end (or may end long after): the worker goes with it.
    this.#stopWorker();
    running.done();
    this.#running = undefined;
    running.pending.reject(new ParseTimeout(this.deadlineMs));
    this.#next();
  }

  #idleSoon(): void {
    if (!this.#worker || this.#idleTimer !== undefined) return;
    const timer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#running || this.#queue.length > 0) return;
      this.stats.idled++;
      this.#stopWorker();
    }, this.idleMs);
    // The idle timer must not keep a finished process alive (the worker does until it ends).
    Deno.unrefTimer(timer);
    this.#idleTimer = timer;
  }

  #stopWorker(): void {
    if (!this.#worker) return;
    this.#worker.terminate();
    this.#worker = undefined;
    this.#grammars = [];
    if (this.#trimTimer !== undefined) clearTimeout(this.#trimTimer);
    this.#trimSoon(0);
  }

  #trimSoon(step: number): void {
    const delay = TRIM_AFTER_MS[step];
    if (delay === undefined) return;
    const previous = TRIM_AFTER_MS[step - 1] ?? 0;
    this.#trimTimer = setTimeout(() => {
      this.#trimTimer = undefined;
      if (returnFreedMemory()) this.#trimSoon(step + 1);
    }, delay - previous);
    // Trimming must not keep a finished process alive.
    Deno.unrefTimer(this.#trimTimer);
  }
}
