// Joins the chunks a stream delivered into one buffer. ssh2 hands data over in pieces (exec
// output, SFTP reads, the helper's tar stream); every reader of them needs the whole.

/** The chunks, in order, as one Uint8Array. */
export function concatBytes(chunks: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const c of chunks) total += c.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
