// What each file looked like when this session last viewed it whole: a fingerprint of its bytes
// and, under a per-session byte budget, its lines, so a re-view can send only what changed.
// Oldest viewed first out; a file whose lines were evicted keeps its fingerprint (small), so an
// unchanged re-view still answers in one line. Pure.

/** Default bound of a session's remembered view content (estimated bytes). */
const DEFAULT_VIEW_MEMORY_BYTES = 4 * 1024 * 1024;
/** Files remembered (fingerprint only once their lines are evicted) at most. */
const MAX_FILES = 2_000;
/** Estimated overhead of one remembered line and one file, on top of its characters (2 bytes each). */
const LINE_BYTES = 32;
const FILE_BYTES = 128;

interface ViewedFile {
  /** Size and fingerprint of the bytes viewed (`size:fnv`). */
  print: string;
  /** The lines shown, or null when they were evicted (or too large to keep). */
  lines: readonly string[] | null;
}

interface Entry extends ViewedFile {
  bytes: number;
}

export class ViewMemory {
  /** Least recently viewed first. */
  private files = new Map<string, Entry>();
  private total = 0;

  constructor(private readonly maxBytes: number = DEFAULT_VIEW_MEMORY_BYTES) {}

  /** Estimated bytes of remembered lines now (what `maxBytes` bounds). */
  get bytes(): number {
    return this.total;
  }

  get(key: string): ViewedFile | undefined {
    return this.files.get(key);
  }

  /** Records a whole-file view of `key`: its bytes' fingerprint and its lines. */
  remember(key: string, print: string, lines: readonly string[]): void {
    const old = this.files.get(key);
    if (old && old.print === print && old.lines !== null && sameLines(old.lines, lines)) {
      // A re-view of an unchanged file: keep the lines already held (long-lived, so replacing
      // them per re-view is garbage that outlives the young generation), most recent last.
      this.files.delete(key);
      this.files.set(key, old);
      return;
    }
    this.forget(key);
    let bytes = FILE_BYTES;
    for (const line of lines) bytes += line.length * 2 + LINE_BYTES;
    const keep = bytes <= this.maxBytes;
    const entry: Entry = { print, lines: keep ? lines : null, bytes: keep ? bytes : 0 };
    this.files.set(key, entry);
    this.total += entry.bytes;
    // Oldest first: drop their lines, keep their fingerprints.
    for (const [k, old] of this.files) {
      if (this.total <= this.maxBytes) break;
      if (k === key || old.lines === null) continue;
      this.total -= old.bytes;
      old.bytes = 0;
      old.lines = null;
    }
    while (this.files.size > MAX_FILES) this.forget(this.files.keys().next().value!);
  }

  forget(key: string): void {
    const old = this.files.get(key);
    if (!old) return;
    this.total -= old.bytes;
    this.files.delete(key);
  }
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
