// The undo history of edits made through this server: per file, the bytes before each edit, kept
// for the life of the process. Bounded: `levels` entries per file (at least 10) and a total byte
// budget; when over budget the oldest entries beyond the first 10 levels of each file go first.

import { fnv1a32 } from "../../core/edit/line_id.ts";

export interface UndoEntry {
  /** What the edit was ("str_replace", "batch_edit", "create", "delete", ...), for messages. */
  action: string;
  /** The file's bytes before the edit; null when the edit created the file. */
  before: Uint8Array | null;
  /** The file's mode before the edit (restored by undo). */
  mode: number | null;
  /** What the edit left on disk (null: the edit deleted the file), to refuse undoing over others' changes. */
  after: { size: number; fingerprint: number } | null;
  /** The path as shown to the agent. */
  url: string;
  /** The edit deleted a symlink: what it held (its target as written), which undo puts back. */
  link?: string;
}

export function fingerprintBytes(bytes: Uint8Array): { size: number; fingerprint: number } {
  return { size: bytes.length, fingerprint: fnv1a32(bytes) };
}

export class UndoStore {
  private files = new Map<string, UndoEntry[]>();
  private bytes = 0;

  constructor(
    private readonly levels = 20,
    private readonly maxBytes = 512 * 1024 * 1024,
    private readonly guaranteedLevels = 10,
  ) {}

  push(key: string, entry: UndoEntry): void {
    const list = this.files.get(key) ?? [];
    list.push(entry);
    this.bytes += entry.before?.length ?? 0;
    while (list.length > this.levels) this.drop(list);
    this.files.set(key, list);
    this.shrink();
  }

  /** The newest entry for the file, without removing it. */
  peek(key: string): UndoEntry | undefined {
    const list = this.files.get(key);
    return list?.[list.length - 1];
  }

  pop(key: string): UndoEntry | undefined {
    const list = this.files.get(key);
    const entry = list?.pop();
    if (entry) this.bytes -= entry.before?.length ?? 0;
    if (list && list.length === 0) this.files.delete(key);
    return entry;
  }

  depth(key: string): number {
    return this.files.get(key)?.length ?? 0;
  }

  private drop(list: UndoEntry[]): void {
    const gone = list.shift();
    this.bytes -= gone?.before?.length ?? 0;
  }

  private shrink(): void {
    if (this.bytes <= this.maxBytes) return;
    for (const list of this.files.values()) {
      while (list.length > this.guaranteedLevels && this.bytes > this.maxBytes) this.drop(list);
    }
    // Still over budget: very large files; drop oldest entries anywhere, keeping the newest one.
    for (const list of this.files.values()) {
      while (list.length > 1 && this.bytes > this.maxBytes) this.drop(list);
    }
  }
}
