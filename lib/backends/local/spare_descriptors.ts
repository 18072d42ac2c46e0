// Whether the process has file descriptors to spare, asked before a module loads on first use
// (lib/core/first_use.ts: a load that meets EMFILE can panic Deno). Opening the null device a
// few times and closing it at once costs microseconds, and runs once per module, not per call.

/** Descriptors a first load wants free: it reads one file at a time; the rest is for calls
 * running beside it. */
const SPARE = 4;

const NULL_DEVICE = Deno.build.os === "windows" ? "NUL" : "/dev/null";

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
