// A one-line progress display on stderr (the `jobs wait` spinner): redrawn in place, cut to the
// terminal's width so it never wraps (a wrapped frame leaves a line behind at each redraw), and
// redrawn at once when the terminal is resized. Used only when stderr is a terminal.

import { cutToColumns } from "../core/text/column_width.ts";
import type { Terminal } from "./output.ts";

/** Columns assumed when the terminal does not say. */
const FALLBACK_COLUMNS = 80;

export class ProgressLine {
  #text = "";
  #drawn = false;
  /** A write that failed in the resize listener, thrown at the next show (not in a signal). */
  #failure: unknown;
  readonly #stopResize: () => void;

  constructor(private readonly terminal: Terminal) {
    this.#stopResize = terminal.onResize(() => {
      if (!this.#drawn) return;
      try {
        this.#draw();
      } catch (e) {
        this.#failure ??= e;
      }
    });
  }

  /** Draws `text` over the previous frame. */
  show(text: string): void {
    if (this.#failure !== undefined) throw this.#failure;
    this.#text = text;
    this.#draw();
    this.#drawn = true;
  }

  /** Erases the line and stops following resizes. */
  clear(): void {
    this.#stopResize();
    if (this.#drawn) this.terminal.err("\r\x1b[K");
    this.#drawn = false;
  }

  #draw(): void {
    // One column short of the width: the last column puts some terminals in a pending wrap.
    const columns = (this.terminal.columns() ?? FALLBACK_COLUMNS) - 1;
    this.terminal.err(`\r${cutToColumns(this.#text, columns)}\x1b[K`);
  }
}
