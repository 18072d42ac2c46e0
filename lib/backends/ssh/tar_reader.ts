// A streaming reader for the tar stream the remote `tar -c` sends for bulk reads: GNU long
// names (`L`), pax `path=` records, ustar prefixes, octal and base-256 sizes. Fed chunk by
// chunk; copies each byte once (no re-concatenation), so big files do not go quadratic.

export interface TarEntry {
  name: string;
  /** "0" regular file, "5" directory, "2" symlink, "1" hard link, … */
  type: string;
  data: Uint8Array;
}

const BLOCK = 512;
const decoder = new TextDecoder();

function readString(block: Uint8Array, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

function readSize(block: Uint8Array): number {
  const field = block.subarray(124, 136);
  if (field[0]! & 0x80) {
    // GNU base-256: big-endian after the marker bit.
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const text = readString(block, 124, 12).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function parsePax(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const text = decoder.decode(data);
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(" ", at);
    if (space === -1) break;
    const len = parseInt(text.slice(at, space), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    // Lengths count bytes; path values are almost always ASCII, close enough for names.
    const record = text.slice(space + 1, at + len - 1);
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

export class TarReader {
  private header = new Uint8Array(BLOCK);
  private headerFill = 0;
  private data: Uint8Array | null = null;
  private dataFill = 0;
  private skip = 0;
  private current: { name: string; type: string } | null = null;
  private longName: string | null = null;
  private paxPath: string | null = null;
  private zeroBlocks = 0;
  /** True once the two zero blocks that end an archive were read. */
  ended = false;

  /**
   * `maxDataBytes`: a file entry larger than this is skipped unread (a file that grew after the
   * remote size filter chose it); its caller reads or refuses it on its own.
   */
  constructor(
    private onEntry: (entry: TarEntry) => void,
    private maxDataBytes = Infinity,
  ) {}

  /** Consumes `chunk`; returns how many bytes belonged to the archive (all until it ends). */
  push(chunk: Uint8Array): number {
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      if (this.data) {
        const n = Math.min(this.data.length - this.dataFill, chunk.length - at);
        this.data.set(chunk.subarray(at, at + n), this.dataFill);
        this.dataFill += n;
        at += n;
        if (this.dataFill === this.data.length) this.finishData();
        continue;
      }
      const n = Math.min(BLOCK - this.headerFill, chunk.length - at);
      this.header.set(chunk.subarray(at, at + n), this.headerFill);
      this.headerFill += n;
      at += n;
      if (this.headerFill === BLOCK) {
        this.headerFill = 0;
        this.startEntry();
      }
    }
    return at;
  }

  private startEntry(): void {
    const h = this.header;
    if (h.every((b) => b === 0)) {
      if (++this.zeroBlocks >= 2) this.ended = true;
      return;
    }
    this.zeroBlocks = 0;
    const size = readSize(h);
    const type = String.fromCharCode(h[156]!) === "\0" ? "0" : String.fromCharCode(h[156]!);
    let name = readString(h, 0, 100);
    const magic = readString(h, 257, 6);
    if (magic === "ustar") {
      const prefix = readString(h, 345, 155);
      if (prefix) name = `${prefix}/${name}`;
    }
    if (type !== "L" && type !== "x" && type !== "g" && type !== "K") {
      if (this.longName !== null) name = this.longName;
      if (this.paxPath !== null) name = this.paxPath;
      this.longName = null;
      this.paxPath = null;
    }
    this.current = { name, type };
    if (size > this.maxDataBytes && type !== "L" && type !== "x" && type !== "g" && type !== "K") {
      this.skip = size + (BLOCK - (size % BLOCK)) % BLOCK;
      return;
    }
    this.data = new Uint8Array(size);
    this.dataFill = 0;
    if (size === 0) this.finishData();
  }

  private finishData(): void {
    const data = this.data!;
    const entry = this.current!;
    this.data = null;
    this.skip = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (entry.type === "L") {
      this.longName = readString(data, 0, data.length);
    } else if (entry.type === "x") {
      this.paxPath = parsePax(data).get("path") ?? null;
    } else if (entry.type !== "g" && entry.type !== "K") {
      this.onEntry({ name: entry.name, type: entry.type, data });
    }
  }
}
