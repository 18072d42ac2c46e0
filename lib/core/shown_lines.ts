// What each file's lines looked like when they were last shown to the agent (in a view or an
// edit result). batch_edit checks every line of a replaced range against this memory, because
// an 8-bit hash on a range's end line ("}" or blank) collides easily after a shift.
// Bounded: at most `maxFiles` files (least recently shown dropped) and `maxLinesPerFile` lines.

export class ShownLines {
  private files = new Map<string, Map<number, number>>();

  constructor(private readonly maxFiles = 256, private readonly maxLinesPerFile = 20_000) {}

  /** Records that lines `firstLine…` of `key` were shown with these hashes. */
  record(key: string, firstLine: number, hashes: readonly number[]): void {
    let file = this.files.get(key);
    if (file) this.files.delete(key);
    else file = new Map();
    this.files.set(key, file); // re-insert: most recently shown last
    for (let i = 0; i < hashes.length; i++) {
      file.delete(firstLine + i);
      file.set(firstLine + i, hashes[i]!);
    }
    while (file.size > this.maxLinesPerFile) file.delete(file.keys().next().value!);
    while (this.files.size > this.maxFiles) this.files.delete(this.files.keys().next().value!);
  }

  /** After a write, the file's old line numbers mean nothing: forget them, then record anew. */
  replaceFile(key: string, hashes: readonly number[], firstLine = 1): void {
    this.files.delete(key);
    this.record(key, firstLine, hashes);
  }

  forget(key: string): void {
    this.files.delete(key);
  }

  /** The hash shown for a line, or undefined when that line was never shown. */
  shownHash(key: string, line: number): number | undefined {
    return this.files.get(key)?.get(line);
  }

  hasFile(key: string): boolean {
    return this.files.has(key);
  }
}
