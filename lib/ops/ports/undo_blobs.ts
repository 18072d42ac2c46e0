// Where the undo history keeps the bytes of edits it does not hold in memory
// (ops/edit/undo_store.ts). Only the interface lives here; lib/backends/local/undo_blob_files.ts
// keeps them in files under the state dir. Without one, the history holds every byte in memory.

export interface UndoBlobs {
  /**
   * Keeps `bytes` outside the process's memory: a handle to read them back, or null when they
   * could not be kept (the history then holds them in memory, as without blobs). Never throws.
   */
  put(bytes: Uint8Array): Promise<string | null>;
  /** The bytes kept under `handle`; throws when they cannot be read back. */
  get(handle: string): Promise<Uint8Array>;
  /** Forgets `handle`'s bytes (best effort, in the background; never throws). */
  drop(handle: string): void;
  /** Forgets every handle's bytes: the history is over (the server ends). */
  close(): Promise<void>;
}
