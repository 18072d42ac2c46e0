// Descriptors kept free for module loads (lib/core/first_use.ts, main.ts): in Deno 2.9.6 a load
// that meets EMFILE can panic the whole process. A few null-device descriptors are held from
// start-up, below the limit, and closed just before a load so that the loader finds them free
// however many the server's own reads and jobs hold; they are taken again once no load runs.

/** Descriptors a load wants free: it reads one file at a time; the rest is for calls running
 * beside it. */
const SPARE = 4;

/** Descriptors held for loads: as many as a load wants free. */
const RESERVE = SPARE;

const NULL_DEVICE = Deno.build.os === "windows" ? "NUL" : "/dev/null";

/** The reserve now held; closed while a load runs. */
const held: Deno.FsFile[] = [];
/** Loads now running with the reserve released: it is taken back when the last one ends. */
let loading = 0;

/**
 * Throws the open's error (its `code` EMFILE or ENFILE) when `spare` descriptors cannot be
 * opened now; any other failure to open the null device (none on this system, say) passes,
 * since it says nothing of descriptors.
 */
export function checkSpareDescriptors(spare = SPARE): void {
  const opened: Deno.FsFile[] = [];
  try {
    for (let i = 0; i < spare; i++) opened.push(Deno.openSync(NULL_DEVICE));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "EMFILE" || code === "ENFILE") throw e;
  } finally {
    for (const file of opened) file.close();
  }
}

/**
 * Opens null-device descriptors until {@linkcode RESERVE} are held, or as many as can be; the
 * count held. Not while a load runs (it is taken back when the last one ends).
 */
function holdReserve(): number {
  if (loading > 0) return held.length;
  try {
    while (held.length < RESERVE) held.push(Deno.openSync(NULL_DEVICE));
  } catch {
    // As many as the limit allows now; the end of the next load tries again.
  }
  return held.length;
}

/**
 * Runs `load` (an import()) with the reserve closed, after checking that {@linkcode SPARE}
 * descriptors are free (it throws the EMFILE or ENFILE then, without loading); the reserve is
 * held again when no load runs any more. `check: false` loads however few are free: for the
 * loads of the server's start, which no later call would try again (Deno's own opens may have
 * taken some of the reserve's room since the start; the loader needs one at a time).
 */
export async function loadWithReserve<T>(
  load: () => Promise<T>,
  { check = true }: { check?: boolean } = {},
): Promise<T> {
  loading++;
  try {
    for (const file of held.splice(0)) file.close();
    if (check) checkSpareDescriptors();
    return await load();
  } finally {
    loading--;
    holdReserve();
  }
}

/** Descriptors Deno opens for itself between start-up and the first load (the signal pipe, the
 * stdin reader): left free by {@linkcode reserveAtStart}, never held. */
const RUNTIME_OPENS = 4;

/**
 * Takes the reserve at start-up, and checks that Deno's own first opens will find room too.
 * False (nothing held) when the limit leaves too few: a server started so should say so and
 * exit before it answers anything, since its first load, or Deno's own next open, would end it.
 */
export function reserveAtStart(): boolean {
  if (holdReserve() === RESERVE) {
    try {
      checkSpareDescriptors(RUNTIME_OPENS);
      return true;
    } catch { /* too few beside the reserve */ }
  }
  for (const file of held.splice(0)) file.close();
  return false;
}
