// The outside process of the confinement race (scripts/bench/_swap_race.ts): swaps two names in one
// folder with renameat2(RENAME_EXCHANGE) in a loop, atomically (a directory and a symlink trade
// places; at no moment is either name missing), until its stdin closes. Linux x86-64/AArch64,
// glibc 2.28+; no compiler needed (Deno FFI).
//
//   deno run --allow-ffi --allow-read scripts/bench/_swapper.ts A B
//
// Prints "swapping" once it has made its first exchange, then the count of exchanges at the end.

// deno-lint-ignore-file no-console

const [a, b] = Deno.args;
if (a === undefined || b === undefined) {
  console.error("usage: _swapper.ts A B");
  Deno.exit(2);
}
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
}).symbols;
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const enc = new TextEncoder();
const from = enc.encode(`${a}\0`);
const to = enc.encode(`${b}\0`);

let stop = false;
// Stdin closing (the parent ended or dropped us) ends the loop.
(async () => {
  for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
  stop = true;
})();

let swaps = 0;
let failures = 0;
while (!stop) {
  // A burst between turns of the event loop, so the stdin watcher still runs.
  for (let i = 0; i < 200; i++) {
    if (libc.renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) === 0) swaps++;
    else failures++;
  }
  if (swaps > 0 && swaps <= 200) console.log("swapping");
  await new Promise((resolve) => setTimeout(resolve, 0));
}
// Even count of exchanges: the names are back where they started.
if (swaps % 2 === 1) libc.renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
console.log(`swaps ${swaps} failures ${failures}`);
