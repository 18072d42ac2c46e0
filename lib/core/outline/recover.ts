// Outlines of files that do not parse: tree-sitter recovers from a syntax error, but an unclosed
// bracket can swallow every declaration after it. Blanking the broken lines (spaces, so offsets
// and columns stay) up to where the next statement starts lets a second parse read the rest
// right. These are the text steps of that; the ops decide when to use them. Pure.

/** Offsets where each line starts (line 1 at index 0). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** `text` with lines `from`..`to` (1-based, inclusive) made of spaces; line ends are kept. */
export function blankLines(text: string, from: number, to: number): string {
  const starts = lineStarts(text);
  const begin = starts[from - 1];
  if (begin === undefined || to < from) return text;
  const end = starts[to] ?? text.length;
  return text.slice(0, begin) + text.slice(begin, end).replace(/[^\r\n]/g, " ") + text.slice(end);
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The first line after `line` (1-based) where parsing can start again: not blank, indented no
 * deeper than `line`, and not a closing bracket (that belongs to what `line` opened). Null when
 * there is none.
 */
export function resyncLine(text: string, line: number): number | null {
  const lines = text.split("\n");
  const at = lines[line - 1];
  if (at === undefined) return null;
  const indent = indentOf(at);
  for (let n = line + 1; n <= lines.length; n++) {
    const candidate = lines[n - 1]!;
    const trimmed = candidate.trim();
    if (trimmed === "" || indentOf(candidate) > indent || /^[)\]}]/.test(trimmed)) continue;
    return n;
  }
  return null;
}
