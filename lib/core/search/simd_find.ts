// A substring finder in WebAssembly SIMD for the search prefilter: 16 candidate positions per
// step, checked on two of the needle's rare bytes, then a byte comparison (ASCII case folding on
// request). `Uint8Array.prototype.indexOf` scans ~0.7 GB/s here; this scans several GB/s. The
// module is assembled here from its instructions (no binary blob, no toolchain). Pure.

/**
 * The module's bytes. Self-contained on purpose (no outside references): the parallel scanner
 * ships its source text to worker threads.
 *
 * Exports `memory`, `find(hay, len, needle, nlen, i1, i2, fold) → index or -1` (the first start
 * of the needle in hay[0, len): candidates must hold needle[i1] at +i1 and needle[i2] at +i2;
 * with `fold`, ASCII letters of hay compare lowercased and the needle must be lowercase) and
 * `zero(ptr, len) → 1 when a NUL byte is in [ptr, ptr + len)`.
 */
export function finderModuleBytes(): Uint8Array<ArrayBuffer> {
  // Unsigned and signed LEB128, as the binary format writes integers.
  const u = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      out.push(b);
    } while (n !== 0);
    return out;
  };
  const s = (n: number): number[] => {
    const out: number[] = [];
    while (true) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
        out.push(b);
        return out;
      }
      out.push(b | 0x80);
    }
  };
  const I32 = 0x7f;
  const V128 = 0x7b;
  const VOID = 0x40;
  const get = (i: number) => [0x20, ...u(i)];
  const set = (i: number) => [0x21, ...u(i)];
  const tee = (i: number) => [0x22, ...u(i)];
  const i32 = (n: number) => [0x41, ...s(n)];
  const add = 0x6a, sub = 0x6b, and = 0x71, or = 0x72, eqz = 0x45, ne = 0x47;
  const ltS = 0x48, gtS = 0x4a, gtU = 0x4b, geU = 0x4f, ltU = 0x49, ctz = 0x68, shl = 0x74;
  const eq = 0x46, popcnt = 0x69;
  const load8 = [0x2d, 0, 0];
  const block = [0x02, VOID], loop = [0x03, VOID], if_ = [0x04, VOID], else_ = 0x05, end = 0x0b;
  const br = (l: number) => [0x0c, ...u(l)];
  const brIf = (l: number) => [0x0d, ...u(l)];
  const ret = 0x0f;
  const call = (f: number) => [0x10, ...u(f)];
  const simd = (op: number, ...rest: number[]) => [0xfd, ...u(op), ...rest];
  const v128Load = simd(0x00, 0, 0);
  const splat = simd(0x0f);
  const eq8 = simd(0x23);
  const vAnd = simd(0x4e);
  const vOr = simd(0x50);
  const anyTrue = simd(0x53);
  const bitmask = simd(0x64);

  // verify(hay, s, needle, nlen, fold) → 1 when hay[s, s + nlen) equals the needle.
  // params 0..4; locals: 5 j, 6 h
  const verify = [
    ...i32(0),
    ...set(5),
    ...block,
    ...loop,
    ...get(5),
    ...get(3),
    geU,
    ...brIf(1),
    ...get(0),
    ...get(1),
    add,
    ...get(5),
    add,
    ...load8,
    ...set(6),
    // fold: A-Z → a-z
    ...get(4),
    ...if_,
    ...get(6),
    ...i32(65),
    sub,
    ...i32(26),
    ltU,
    ...if_,
    ...get(6),
    ...i32(32),
    or,
    ...set(6),
    end,
    end,
    ...get(6),
    ...get(2),
    ...get(5),
    add,
    ...load8,
    ne,
    ...if_,
    ...i32(0),
    ret,
    end,
    ...get(5),
    ...i32(1),
    add,
    ...set(5),
    ...br(0),
    end,
    end,
    ...i32(1),
  ];

  // find: params 0 hay, 1 len, 2 needle, 3 nlen, 4 i1, 5 i2, 6 fold
  // locals: 7 p, 8 last, 9 mask, 10 b1, 11 b2, 12 s1 (v128), 13 s2, 14 o1, 15 o2
  const orMaskFor = (b: number) => [
    // fold and b is a lowercase letter → splat(0x20), else splat(0)
    ...get(6),
    ...if_.slice(0, 1),
    I32,
    ...get(b),
    ...i32(97),
    sub,
    ...i32(26),
    ltU,
    ...i32(5),
    shl,
    else_,
    ...i32(0),
    end,
    ...splat,
  ];
  const find = [
    ...get(1),
    ...get(3),
    sub,
    ...tee(8),
    ...i32(0),
    ltS, // len < nlen
    ...if_,
    ...i32(-1),
    ret,
    end,
    ...get(2),
    ...get(4),
    add,
    ...load8,
    ...tee(10),
    ...splat,
    ...set(12),
    ...get(2),
    ...get(5),
    add,
    ...load8,
    ...tee(11),
    ...splat,
    ...set(13),
    ...orMaskFor(10),
    ...set(14),
    ...orMaskFor(11),
    ...set(15),
    ...i32(0),
    ...set(7),
    // 16 starts at a time while p <= last - 15
    ...block,
    ...loop,
    ...get(7),
    ...get(8),
    ...i32(15),
    sub,
    gtS,
    ...brIf(1),
    ...get(0),
    ...get(7),
    add,
    ...get(4),
    add,
    ...v128Load,
    ...get(14),
    ...vOr,
    ...get(12),
    ...eq8,
    ...get(0),
    ...get(7),
    add,
    ...get(5),
    add,
    ...v128Load,
    ...get(15),
    ...vOr,
    ...get(13),
    ...eq8,
    ...vAnd,
    ...bitmask,
    ...tee(9),
    ...if_,
    ...block,
    ...loop,
    ...get(9),
    eqz,
    ...brIf(1),
    ...get(0),
    ...get(7),
    ...get(9),
    ctz,
    add,
    ...get(2),
    ...get(3),
    ...get(6),
    ...call(0),
    ...if_,
    ...get(7),
    ...get(9),
    ctz,
    add,
    ret,
    end,
    ...get(9),
    ...get(9),
    ...i32(1),
    sub,
    and,
    ...set(9),
    ...br(0),
    end,
    end,
    end,
    ...get(7),
    ...i32(16),
    add,
    ...set(7),
    ...br(0),
    end,
    end,
    // the last starts one at a time
    ...block,
    ...loop,
    ...get(7),
    ...get(8),
    gtS,
    ...brIf(1),
    ...get(0),
    ...get(7),
    ...get(2),
    ...get(3),
    ...get(6),
    ...call(0),
    ...if_,
    ...get(7),
    ret,
    end,
    ...get(7),
    ...i32(1),
    add,
    ...set(7),
    ...br(0),
    end,
    end,
    ...i32(-1),
  ];

  // zero: params 0 ptr, 1 len; locals: 2 p, 3 end
  const zero = [
    ...get(0),
    ...get(1),
    add,
    ...set(3),
    ...get(0),
    ...set(2),
    ...block,
    ...loop,
    ...get(2),
    ...i32(16),
    add,
    ...get(3),
    gtU, // p + 16 > end
    ...brIf(1),
    ...get(2),
    ...v128Load,
    ...i32(0),
    ...splat,
    ...eq8,
    ...anyTrue,
    ...if_,
    ...i32(1),
    ret,
    end,
    ...get(2),
    ...i32(16),
    add,
    ...set(2),
    ...br(0),
    end,
    end,
    ...block,
    ...loop,
    ...get(2),
    ...get(3),
    geU,
    ...brIf(1),
    ...get(2),
    ...load8,
    eqz,
    ...if_,
    ...i32(1),
    ret,
    end,
    ...get(2),
    ...i32(1),
    add,
    ...set(2),
    ...br(0),
    end,
    end,
    ...i32(0),
  ];
  // lines: params 0 ptr, 1 len; locals: 2 p, 3 end, 4 n, 5 high, 6 acc (v128), 7 v (v128), 8 b
  // → n, how many LF bytes [ptr, ptr + len) holds; -1 - n when a byte of it is not ASCII.
  const lines = [
    ...get(0),
    ...get(1),
    add,
    ...set(3),
    ...get(0),
    ...set(2),
    ...block,
    ...loop,
    ...get(2),
    ...i32(16),
    add,
    ...get(3),
    gtU, // p + 16 > end
    ...brIf(1),
    ...get(2),
    ...v128Load,
    ...set(7),
    ...get(6),
    ...get(7),
    ...vOr,
    ...set(6),
    ...get(7),
    ...i32(10),
    ...splat,
    ...eq8,
    ...bitmask,
    popcnt,
    ...get(4),
    add,
    ...set(4),
    ...get(2),
    ...i32(16),
    add,
    ...set(2),
    ...br(0),
    end,
    end,
    ...block,
    ...loop,
    ...get(2),
    ...get(3),
    geU,
    ...brIf(1),
    ...get(2),
    ...load8,
    ...tee(8),
    ...get(5),
    or,
    ...set(5),
    ...get(8),
    ...i32(10),
    eq,
    ...get(4),
    add,
    ...set(4),
    ...get(2),
    ...i32(1),
    add,
    ...set(2),
    ...br(0),
    end,
    end,
    // A lane's top bit set anywhere, or in a tail byte: not ASCII.
    ...get(6),
    ...bitmask,
    ...get(5),
    ...i32(0x80),
    and,
    or,
    ...if_,
    ...i32(-1),
    ...get(4),
    sub,
    ret,
    end,
    ...get(4),
  ];
  const body = (locals: [number, number][], code: number[]) => {
    const decl = [...u(locals.length), ...locals.flatMap(([n, t]) => [...u(n), t])];
    const all = [...decl, ...code, end];
    return [...u(all.length), ...all];
  };
  const section = (id: number, content: number[]) => [id, ...u(content.length), ...content];
  const vec = (items: number[][]) => [...u(items.length), ...items.flat()];
  const name = (text: string) => [...u(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
  const funcType = (params: number, results: number) => [
    0x60,
    ...u(params),
    ...Array(params).fill(I32),
    ...u(results),
    ...Array(results).fill(I32),
  ];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([funcType(5, 1), funcType(7, 1), funcType(2, 1)])),
    ...section(3, vec([[0], [1], [2], [2]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(
      7,
      vec([
        [...name("memory"), 0x02, 0],
        [...name("find"), 0x00, 1],
        [...name("zero"), 0x00, 2],
        [...name("lines"), 0x00, 3],
      ]),
    ),
    ...section(
      10,
      vec([
        body([[2, I32]], verify),
        body([[5, I32], [4, V128]], find),
        body([[2, I32]], zero),
        body([[4, I32], [2, V128], [1, I32]], lines),
      ]),
    ),
  ]);
}

/** A haystack buffer inside the module's memory, and the searches over it. */
export interface Finder {
  /** The haystack buffer, at least `bytes` long (a fresh view: growing detaches the old one). */
  room(bytes: number): Uint8Array;
  /** Whether the first `length` bytes of the buffer hold the literal (or its Latin-1 twin). */
  contains(length: number, literal: FinderLiteral): boolean;
  /** Whether a NUL byte is among the first `length` bytes of the buffer. */
  hasZero(length: number): boolean;
  /**
   * Where the literal's bytes (never its Latin-1 twin) first start in `bytes[from, to)`, or -1;
   * null when `bytes` is not a view of this finder's memory (only such views are searched).
   */
  indexIn(bytes: Uint8Array, from: number, to: number, literal: FinderLiteral): number | null;
  /**
   * n, how many LF bytes `bytes[from, to)` holds, or -1 - n when one of its bytes is not ASCII;
   * null when `bytes` is not a view of this finder's memory.
   */
  lines(bytes: Uint8Array, from: number, to: number): number | null;
}

/** What the finder needs of a ByteLiteral (core/search_pattern.ts). */
interface FinderLiteral {
  bytes: Uint8Array;
  anchor: number;
  /** A second rare byte's index (the anchor again for a one-byte needle). */
  pair: number;
  ignoreCase: boolean;
  latin1?: FinderLiteral;
}

/**
 * Instantiates the module (`bytes` from finderModuleBytes). Self-contained on purpose, like
 * finderModuleBytes: it runs inside the scanner's workers too.
 */
export function createFinder(bytes: Uint8Array<ArrayBuffer>): Finder {
  // The needle sits at the start of the memory, the haystack after it.
  const region = 64 * 1024;
  const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as {
    memory: WebAssembly.Memory;
    find(
      hay: number,
      len: number,
      n: number,
      nlen: number,
      i1: number,
      i2: number,
      f: number,
    ): number;
    zero(ptr: number, len: number): number;
    lines(ptr: number, len: number): number;
  };
  const memory = exports.memory;
  let view = new Uint8Array(memory.buffer);
  let loaded: FinderLiteral | null = null;
  const room = (size: number): Uint8Array => {
    const need = region + size + 16;
    if (memory.buffer.byteLength < need) {
      memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
      view = new Uint8Array(memory.buffer);
      loaded = null;
    } else if (view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer);
    return view.subarray(region, view.length - 16);
  };
  room(0);
  // The first start of the literal in [at, at + length) of the memory; 0 (a superset answer, as
  // allowed) for a needle too long for its region.
  const first = (at: number, length: number, literal: FinderLiteral): number => {
    const n = literal.bytes.length;
    if (n === 0 || n > region) return 0;
    if (loaded !== literal) {
      view.set(literal.bytes, 0);
      loaded = literal;
    }
    return exports.find(at, length, 0, n, literal.anchor, literal.pair, literal.ignoreCase ? 1 : 0);
  };
  const one = (length: number, literal: FinderLiteral) => first(region, length, literal) !== -1;
  // Views of the memory only: a search there needs no copy (a grown memory detached old views).
  const inMemory = (bytes: Uint8Array) =>
    bytes.buffer === memory.buffer && bytes.byteOffset >= region;
  return {
    room,
    contains: (length, literal) =>
      (literal.latin1 !== undefined && one(length, literal.latin1)) || one(length, literal),
    hasZero: (length) => exports.zero(region, length) === 1,
    indexIn: (bytes, from, to, literal) => {
      if (!inMemory(bytes)) return null;
      const at = first(bytes.byteOffset + from, to - from, literal);
      return at === -1 ? -1 : from + at;
    },
    lines: (bytes, from, to) =>
      inMemory(bytes) ? exports.lines(bytes.byteOffset + from, to - from) : null,
  };
}
