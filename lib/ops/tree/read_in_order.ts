// Reads a stream of files in the order given, for listings (heads) and search (whole files):
// bulk `readFiles` batches when the backend has them, else a small window of reads in flight.
// Holds at most a batch of contents; sizes are bounded by the caller's options.

import { fileTooLargeToRead } from "../../core/read_refusals.ts";
import type { FileBackend, ReadFilesOptions } from "../ports/file_backend.ts";
import { readHead } from "../read_limits.ts";

interface FileContent<T> {
  item: T;
  /** The file, or only its first `headBytes` when that option was given. */
  data?: Uint8Array;
  /** The file's full size, when known (always with `headBytes`). */
  size?: number;
  error?: Error;
}

interface ReadInOrderOptions<T> {
  batch?: number;
  window?: number;
  skip?: (item: T) => boolean;
  /**
   * Read at most this many bytes of each file (a listing needs the head, not a 3 GB file);
   * `size` then gives the full size.
   */
  headBytes?: number;
  /**
   * Files larger than this are not read: they come back with a FILE_TOO_LARGE error (a search
   * skips and counts them rather than hold a 3 GB file).
   */
  skipLargerThan?: number;
}

/** Reads files in the order given: bulk `readFiles` batches when available, else a small window. */
export async function* readInOrder<T extends { path: string; size?: number }>(
  backend: FileBackend,
  items: AsyncIterable<T>,
  options: ReadInOrderOptions<T> = {},
): AsyncGenerator<FileContent<T>> {
  if (backend.readFiles) yield* readBatchesInOrder(backend, items, options);
  else yield* readWindowInOrder(backend, items, options);
}

type Read = { data?: Uint8Array; size?: number; error?: Error };

/** A read cut to `head` bytes (with the full size), or its data and size as they came. */
export function cutToHead(r: Read, head: number | undefined): { data?: Uint8Array; size?: number } {
  if (!r.data) return {};
  const size = r.size ?? r.data.length;
  return head !== undefined && r.data.length > head
    ? { data: r.data.subarray(0, head), size }
    : { data: r.data, size };
}

/** readInOrder for backends with `readFiles`: batches of `options.batch` files. */
async function* readBatchesInOrder<T extends { path: string; size?: number }>(
  backend: FileBackend,
  items: AsyncIterable<T>,
  options: ReadInOrderOptions<T>,
): AsyncGenerator<FileContent<T>> {
  const batchSize = options.batch ?? 256;
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= batchSize) {
      yield* readOneBatch(backend, batch, options);
      batch = [];
    }
  }
  if (batch.length > 0) yield* readOneBatch(backend, batch, options);
}

/**
 * One batch through `readFiles`. Items go out as soon as every earlier one has arrived: a
 * backend that reads in order (local disk) then holds one file at a time, and the consumer can
 * stop mid-batch. A file known to be bigger than the head is read alone, by range: a bulk stream
 * (tar over ssh) would carry all of it.
 */
async function* readOneBatch<T extends { path: string; size?: number }>(
  backend: FileBackend,
  batch: readonly T[],
  options: ReadInOrderOptions<T>,
): AsyncGenerator<FileContent<T>> {
  const skip = options.skip ?? (() => false);
  const head = options.headBytes;
  const alone = (item: T) => head !== undefined && (item.size ?? 0) > head;
  const bulk: ReadFilesOptions = {
    ...(head !== undefined && { headBytes: head }),
    ...(options.skipLargerThan !== undefined && { skipLargerThan: options.skipLargerThan }),
  };
  const got = new Map<string, Read>();
  const paths = batch.filter((b) => !skip(b) && !alone(b)).map((b) => b.path);
  let next = 0;
  const ready = async function* (): AsyncGenerator<FileContent<T>> {
    while (next < batch.length) {
      const item = batch[next]!;
      if (skip(item)) {
        next++;
        yield { item };
        continue;
      }
      if (alone(item)) {
        next++;
        yield await readHead(backend, item.path, head!).then(
          ({ data, size }) => ({ item, data, size }),
          (error) => ({ item, error: error as Error }),
        );
        continue;
      }
      const r = got.get(item.path);
      if (!r) return;
      got.delete(item.path);
      next++;
      yield r.data
        ? { item, ...cutToHead(r, head) }
        : { item, error: r.error ?? new Error("not returned by readFiles") };
    }
  };
  for await (const r of readMany(backend, paths, bulk)) {
    got.set(r.path, r);
    yield* ready();
  }
  yield* ready();
  for (; next < batch.length; next++) {
    yield { item: batch[next]!, error: new Error("not returned by readFiles") };
  }
}

/** readInOrder for backends without `readFiles`: a window of reads in flight. */
async function* readWindowInOrder<T extends { path: string; size?: number }>(
  backend: FileBackend,
  items: AsyncIterable<T>,
  options: ReadInOrderOptions<T>,
): AsyncGenerator<FileContent<T>> {
  const skip = options.skip ?? (() => false);
  const head = options.headBytes;
  const windowSize = options.window ?? 16;
  const pending: Promise<FileContent<T>>[] = [];
  const start = (item: T): Promise<FileContent<T>> =>
    skip(item)
      ? Promise.resolve({ item })
      : head !== undefined
      ? readHead(backend, item.path, head).then(
        ({ data, size }) => ({ item, data, size }),
        (error) => ({ item, error: error as Error }),
      )
      : readWhole(backend, item.path, options.skipLargerThan).then(
        (data) => ({ item, data }),
        (error) => ({ item, error: error as Error }),
      );
  try {
    for await (const item of items) {
      pending.push(start(item));
      if (pending.length >= windowSize) yield await pending.shift()!;
    }
    while (pending.length > 0) yield await pending.shift()!;
  } finally {
    // A consumer that stops early (output cap) must not leave reads running.
    await Promise.all(pending);
  }
}

export async function* readMany(
  backend: FileBackend,
  paths: readonly string[],
  options: ReadFilesOptions = {},
): AsyncGenerator<{ path: string; data?: Uint8Array; size?: number; error?: Error }> {
  if (paths.length === 0) return;
  if (backend.readFiles) {
    yield* backend.readFiles(paths, options);
    return;
  }
  for (const path of paths) {
    try {
      yield { path, data: await readWhole(backend, path, options.skipLargerThan) };
    } catch (error) {
      yield { path, error: error as Error };
    }
  }
}

/**
 * The whole file; with `limit`, a stat first refuses a bigger one (FILE_TOO_LARGE) unread, and
 * the read stops one byte past it whatever the stat said (a /proc file says 0 bytes).
 */
async function readWhole(backend: FileBackend, path: string, limit?: number): Promise<Uint8Array> {
  if (limit === undefined) return await backend.readFile(path);
  const info = await backend.stat(path);
  if (info && info.size > limit) throw fileTooLargeToRead(path, info.size, limit);
  const data = await backend.readFile(path, { maxBytes: limit });
  if (data.length > limit) throw fileTooLargeToRead(path, data.length, limit, info?.size ?? 0);
  return data;
}
