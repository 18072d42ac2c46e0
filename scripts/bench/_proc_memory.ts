// What a process's resident memory is made of, read from /proc (Linux), for the memory benches:
// V8 heap pages (anonymous mappings of 256 KiB-2 MiB: V8's regular pages), other anonymous
// memory (V8's large objects, thread stacks and malloc arenas), glibc's main malloc heap
// ([heap]: array buffers' backing stores, Rust allocations) and file-backed pages (the deno
// binary's text, mapped read-only and shared). Sampled while a scenario runs, it tells which of
// them made the peak (issue 26, docs/benchmarks.md).

export interface Regions {
  v8: number;
  otherAnon: number;
  malloc: number;
  file: number;
  threads: number;
}

/** The regions of `pid` now, in MB. */
export function regions(pid: number): Regions {
  const text = Deno.readTextFileSync(`/proc/${pid}/smaps`);
  const kb = { v8: 0, otherAnon: 0, malloc: 0, file: 0 };
  let name = "";
  let sizeKb = 0;
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      sizeKb = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 1024;
      name = m[3]!;
      continue;
    }
    if (!line.startsWith("Rss:")) continue;
    const rss = Number(line.split(/\s+/)[1]);
    if (name === "[heap]") kb.malloc += rss;
    else if (name !== "") kb.file += rss;
    else if (sizeKb >= 256 && sizeKb <= 2048) kb.v8 += rss;
    else kb.otherAnon += rss;
  }
  let threads = 0;
  for (const _ of Deno.readDirSync(`/proc/${pid}/task`)) threads++;
  return {
    v8: kb.v8 / 1024,
    otherAnon: kb.otherAnon / 1024,
    malloc: kb.malloc / 1024,
    file: kb.file / 1024,
    threads,
  };
}

/** "v8 66 · other anon 34 · malloc 16 · file 62 · 12 threads" */
export function describeRegions(r: Regions): string {
  const mb = (n: number) => n.toFixed(0);
  return `V8 pages ${mb(r.v8)} · other anon ${mb(r.otherAnon)} · malloc ${mb(r.malloc)} · file ${
    mb(r.file)
  } · ${r.threads} threads`;
}

/**
 * Samples `pid`'s RSS every `everyMs` until stopped; `stop()` gives the regions at the highest
 * sample (null when none was taken, e.g. the process ended).
 */
export function samplePeak(pid: number, everyMs = 25): { stop: () => Regions | null } {
  let best = 0;
  let at: Regions | null = null;
  const timer = setInterval(() => {
    try {
      const status = Deno.readTextFileSync(`/proc/${pid}/status`);
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
      if (rss > best) {
        best = rss;
        at = regions(pid);
      }
    } catch { /* gone */ }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return at;
    },
  };
}
