// A separate process holding anchorfs's write lock of one file until its stdin closes, for the
// write-lock tests: `deno run -A _hold_lock.ts PATH [folder|beside|""]` prints "held" once inside.

import { LocalWriteLocks, type LockStyle } from "../../../lib/backends/local/write_lock.ts";

const [path, style] = Deno.args;
// No style (or ""): the running OS's.
await new LocalWriteLocks(style ? { style: style as LockStyle } : {}).run(path!, async () => {
  await Deno.stdout.write(new TextEncoder().encode("held\n"));
  await Deno.stdin.readable.pipeTo(new WritableStream()); // until the test closes it
});
