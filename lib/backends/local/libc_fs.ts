// The search workers' reads on Linux straight through libc (open, read, close, statx by FFI): a
// SummaryFs (quick_summary.ts) without node:fs's layers, which cost ~25 % of a worker's time on
// a tree of small files and allocate on every call (measured, docs/benchmarks.md, issue 26).
// Its source runs inside the workers (parallel_scan.ts). Linux only (the flag values); where
// FFI is not allowed the workers keep node:fs. Every failure throws: the caller leaves that file
// to the main thread, which reads it the careful way.

import type { SummaryFs } from "./quick_summary.ts";

/** The libc symbols libcSummaryFs calls (the workers open libc with this table). */
export const LIBC_FS_SYMBOLS = {
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
} as const;

type LibcFs = Deno.DynamicLibrary<typeof LIBC_FS_SYMBOLS>["symbols"];

/**
 * A SummaryFs over libc `c` (opened with LIBC_FS_SYMBOLS) for absolute paths. Self-contained
 * (its source runs in the workers, where imports do not exist).
 */
export function libcSummaryFs(c: LibcFs): SummaryFs {
  const AT_FDCWD = -100;
  const O_NONBLOCK = 0o4000;
  const O_CLOEXEC = 0o2000000;
  const AT_EMPTY_PATH = 0x1000;
  const enc = new TextEncoder();
  // The name with its NUL, encoded into one reused buffer (a path is at most 4 KiB on Linux).
  const nameBuf = new Uint8Array(4096 * 3 + 1);
  const empty = new Uint8Array(1);
  const stat = new Uint8Array(256);
  const statView = new DataView(stat.buffer);
  return {
    openSync(path, flags) {
      // Lone surrogates would be encoded as U+FFFD: another name; the backend opens those.
      if (!path.isWellFormed() || path.length > 4096) throw new Error("not a plain name");
      const { written } = enc.encodeInto(path, nameBuf);
      nameBuf[written] = 0;
      const fd = c.openat(AT_FDCWD, nameBuf, flags | O_CLOEXEC, 0);
      if (fd < 0) throw new Error("open failed");
      return fd;
    },
    readSync(fd, buffer, offset, length, position) {
      const into = offset === 0 ? buffer : buffer.subarray(offset);
      const n = Number(
        position === null
          ? c.read(fd, into, BigInt(length))
          : c.pread(fd, into, BigInt(length), BigInt(position)),
      );
      if (n < 0) throw new Error("read failed");
      return n;
    },
    closeSync(fd) {
      c.close(fd);
    },
    fstatSync(fd) {
      // STATX_TYPE | STATX_MODE | STATX_SIZE; stx_mode at 28, stx_size at 40.
      if (c.statx(fd, empty, AT_EMPTY_PATH, 0x203, stat) !== 0) throw new Error("statx failed");
      const size = Number(statView.getBigUint64(40, true));
      const regular = (statView.getUint16(28, true) & 0o170000) === 0o100000;
      return { size, isFile: () => regular };
    },
    constants: { O_RDONLY: 0, O_NONBLOCK },
  };
}
