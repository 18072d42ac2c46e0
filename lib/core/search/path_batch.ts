// A batch of files for a search's scanner as each directory's prefix once and the names in it,
// not one full path string per file. A search of a node_modules tree (20,462 files) made every
// path on the main thread, held it until the workers answered its batch (past V8's young
// generation: promoted, then found dead by a full collection) and copied it into each worker:
// 3.0 MB a search outlived the young generation for the paths and 2.3 MB for the messages
// carrying them, of 7.2 in all (search_profile_bench --promoted, issue 26). The names already
// live in the walk's directory entries, so a batch adds only its prefixes and a 512-byte index.

/** The files of one batch: file `i` is `prefixes[dirOf[i]] + names[i]`. */
export interface PathBatch {
  /** Each directory's path with its trailing separator (`/src/`), once per batch. */
  readonly prefixes: readonly string[];
  readonly names: readonly string[];
  /** For each name, the index of its directory's prefix. */
  readonly dirOf: Uint16Array;
}

/** The path of file `i` of `batch`. */
export function pathAt(batch: PathBatch, i: number): string {
  return batch.prefixes[batch.dirOf[i]!]! + batch.names[i]!;
}

/** A batch of whole paths (a file root, bytes already read, tests): one empty prefix. */
export function batchOfPaths(paths: readonly string[]): PathBatch {
  return { prefixes: [""], names: paths, dirOf: new Uint16Array(paths.length) };
}

/**
 * Fills batches of up to `capacity` files (at most 65,536: the index is 16-bit) in walk order.
 * A prefix is added when it differs from the last one: a walk hands out a directory's files
 * together, with the same prefix string for all of them.
 */
export class PathBatchBuilder {
  private prefixes: string[] = [];
  private names: string[] = [];
  private dirOf: Uint16Array;

  constructor(private readonly capacity: number) {
    if (capacity < 1 || capacity > 65_536) throw new RangeError(`capacity ${capacity}`);
    this.dirOf = new Uint16Array(capacity);
  }

  get length(): number {
    return this.names.length;
  }

  get full(): boolean {
    return this.names.length >= this.capacity;
  }

  /** Adds the file `prefix + name`; the batch must not be full. */
  add(prefix: string, name: string): void {
    if (this.full) throw new RangeError("the batch is full: take() it first");
    const last = this.prefixes.length - 1;
    if (last < 0 || this.prefixes[last] !== prefix) this.prefixes.push(prefix);
    this.dirOf[this.names.length] = this.prefixes.length - 1;
    this.names.push(name);
  }

  /** The batch so far, and an empty one started. */
  take(): PathBatch {
    const batch = {
      prefixes: this.prefixes,
      names: this.names,
      dirOf: this.dirOf.subarray(0, this.names.length),
    };
    this.prefixes = [];
    this.names = [];
    this.dirOf = new Uint16Array(this.capacity);
    return batch;
  }
}
