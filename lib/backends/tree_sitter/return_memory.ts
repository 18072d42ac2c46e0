// Gives the system back the memory a finished outline worker's thread freed: glibc keeps a
// thread's malloc arena (64 MiB reserved; tens of MiB touched by V8 compiling the grammars) as
// resident after the thread ends, until malloc_trim releases its free pages. Linux/glibc only;
// elsewhere (or without --allow-ffi) nothing happens.

type Libc = { malloc_trim(pad: bigint): number };

let libc: Libc | null | undefined;

function load(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    }).symbols;
  } catch {
    libc = null; // musl and others: no malloc_trim, and no arena kept either
  }
  return libc;
}

/** Releases free malloc pages of every arena; false when this platform cannot. */
export function returnFreedMemory(): boolean {
  const symbols = load();
  if (!symbols) return false;
  symbols.malloc_trim(0n);
  return true;
}
