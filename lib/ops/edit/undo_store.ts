// The undo history of edits made through this server: per file, the bytes before each edit, kept
// for the life of the process. Bounded: `levels` entries per file (at least 10) and a total byte
// budget; when over budget the oldest entries beyond the first 10 levels of each file go first.
// With blobs (ports/undo_blobs.ts: files under the state dir) only `memoryBytes` of them stay in
// memory, the newest; the rest are written out, oldest first, and read back by an undo. Without,
// each edit of a 15 MB file kept 15 MB in the server for its life (issue 26: six such edits, 88
// MB).

import { AnchorError } from "../../core/errors.ts";
import { fnv1a32 } from "../../core/edit/line_id.ts";
import type { UndoBlobs } from "../ports/undo_blobs.ts";

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

/** One level of a file's history: its entry, and where its bytes are now. */
interface Level {
  entry: UndoEntry;
  /** Its bytes' count (0 when the edit created the file). */
  size: number;
  /** The bytes, while in memory (also while being written out). */
  bytes: Uint8Array | null;
  /** Their handle in the blobs once written out. */
  saved: string | null;
  /** Being written out now, or could not be: not tried again. */
  writing: boolean;
  failed: boolean;
  /** Dropped from the history (a write out that ends after it forgets what it wrote). */
  gone: boolean;
}

export class UndoStore {
  private files = new Map<string, Level[]>();
  private bytes = 0;
  private inMemory = 0;
  private writing = false;

  constructor(
    private readonly levels = 20,
    private readonly maxBytes = 512 * 1024 * 1024,
    private readonly guaranteedLevels = 10,
    /** Where bytes past `memoryBytes` go; without, all stay in memory. */
    readonly blobs: UndoBlobs | null = null,
    /** Bytes of the history kept in memory when there are blobs to write the rest to. */
    private readonly memoryBytes: number = 16 * 1024 * 1024,
  ) {}

  push(key: string, entry: UndoEntry): void {
    const list = this.files.get(key) ?? [];
    const size = entry.before?.length ?? 0;
    list.push({
      entry: { ...entry, before: null },
      size,
      bytes: entry.before,
      saved: null,
      writing: false,
      failed: false,
      gone: false,
    });
    this.bytes += size;
    if (entry.before) this.inMemory += size;
    while (list.length > this.levels) this.drop(list);
    this.files.set(key, list);
    this.shrink();
    this.writeOut();
  }

  /**
   * The newest entry for the file, with its bytes (read back when written out), without removing
   * it. Bytes that cannot be read back are an error that drops that level: the next undo goes
   * one further back.
   */
  async peek(key: string): Promise<UndoEntry | undefined> {
    const list = this.files.get(key);
    const level = list?.[list.length - 1];
    if (!level) return undefined;
    if (level.bytes !== null || level.size === 0 && level.saved === null) {
      return { ...level.entry, before: level.bytes };
    }
    try {
      return { ...level.entry, before: await this.blobs!.get(level.saved!) };
    } catch (e) {
      if (list?.[list.length - 1] === level) this.pop(key);
      throw lostBytes(level.entry, e);
    }
  }

  /** Removes the newest entry for the file; its metadata (its bytes are not read back). */
  pop(key: string): UndoEntry | undefined {
    const list = this.files.get(key);
    const level = list?.pop();
    if (level) this.forget(level);
    if (list && list.length === 0) this.files.delete(key);
    return level?.entry;
  }

  depth(key: string): number {
    return this.files.get(key)?.length ?? 0;
  }

  /** Forgets every level (an HTTP agent's session ended); its written-out bytes go too. */
  clear(): void {
    for (const list of this.files.values()) for (const level of list) this.forget(level);
    this.files.clear();
  }

  /** Bytes of the history held in memory now (tests, benchmarks). */
  get bytesInMemory(): number {
    return this.inMemory;
  }

  private drop(list: Level[]): void {
    const gone = list.shift();
    if (gone) this.forget(gone);
  }

  private forget(level: Level): void {
    level.gone = true;
    this.bytes -= level.size;
    if (level.bytes) this.inMemory -= level.size;
    level.bytes = null;
    if (level.saved !== null) this.blobs?.drop(level.saved);
    level.saved = null;
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

  /**
   * Writes levels out, one at a time and oldest first (the least recently edited file's first),
   * while more than `memoryBytes` are in memory. Each level's bytes stay in memory until written.
   */
  private writeOut(): void {
    if (!this.blobs || this.writing || this.inMemory <= this.memoryBytes) return;
    const level = this.oldestInMemory();
    if (!level) return;
    this.writing = true;
    level.writing = true;
    const bytes = level.bytes!;
    void this.blobs.put(bytes).catch(() => null).then((handle) => {
      this.writing = false;
      level.writing = false;
      if (handle === null) level.failed = true;
      else if (level.gone) this.blobs!.drop(handle);
      else {
        level.saved = handle;
        level.bytes = null;
        this.inMemory -= level.size;
      }
      this.writeOut();
    });
  }

  private oldestInMemory(): Level | undefined {
    for (const list of this.files.values()) {
      for (const level of list) if (level.bytes && !level.failed && !level.writing) return level;
    }
    return undefined;
  }
}

function lostBytes(entry: UndoEntry, cause: unknown): AnchorError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new AnchorError({
    code: "INTERNAL",
    message: `The bytes saved for undoing the last edit of ${entry.url} (${entry.action}) could ` +
      `not be read back (${why.replace(/\.+$/, "")}); the file was not changed, and that level ` +
      "of its undo history is gone.",
    hint: "The file is as the last edit left it: view it and fix it by hand (or from version " +
      "control). undo_edit again undoes the edit before that one, if there was one.",
    fault: "internal",
    cause,
  });
}
