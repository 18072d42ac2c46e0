// The escapes a job's processes use to leave it, each as one line of a job's command: shared by
// tests/faults/escapes_test.ts and scripts/bench/containment_bench.ts. `m` marks the escape's processes
// (it is in their command lines), `r` is a file it creates once it runs.

/** A loop that says it started, then writes its marker into its stdout (the job's log). */
function writer(m: string, r: string): string {
  return `: > ${r}; while :; do echo ${m}; sleep 0.05; done`;
}

export const ESCAPES: Readonly<Record<string, (m: string, r: string) => string>> = {
  "env -i setsid": (m, r) => `(env -i setsid sh -c '${writer(m, r)}' &)`,
  "setsid -f": (m, r) => `setsid -f sh -c '${writer(m, r)}'`,
  "nohup": (m, r) => `nohup sh -c '${writer(m, r)}' &`,
  "double fork": (m, r) => `( (sh -c '${writer(m, r)}' &) & )`,
  "triple fork": (m, r) => `( ( (sh -c '${writer(m, r)}' &) & ) & )`,
  "disown": (m, r) => `sh -c '${writer(m, r)}' & disown`,
  // Clears its environment, leaves the session, is reparented, and detaches its output.
  "daemon": (m, r) =>
    `(env -i setsid sh -c 'cd /; exec </dev/null >/dev/null 2>&1; ${writer(m, r)}' &)`,
  "ignores SIGTERM": (m, r) => `sh -c 'trap "" TERM; ${writer(m, r)}' &`,
  // Keeps starting children that leave its session, each living a second.
  "fork loop": (m, r) =>
    `sh -c ': > ${r}; while :; do setsid sh -c "for i in 1 2; do sleep 0.5; done; : ${m}" & ` +
    `sleep 0.05; done; : ${m}' &`,
};

/**
 * A job command holding every escape (markers by escape name, ready files in `dir`); its shell
 * waits until all of them run, then ends (`endsItself`) or keeps running.
 */
export function escapesCommand(
  markers: Record<string, string>,
  dir: string,
  endsItself: boolean,
): { command: string; readies: string[] } {
  const readies = Object.keys(ESCAPES).map((_, i) => `${dir}/ready.${i}`);
  const lines = Object.entries(ESCAPES).map(([name, line], i) => line(markers[name]!, readies[i]!));
  lines.push(`until ${readies.map((r) => `[ -f ${r} ]`).join(" && ")}; do sleep 0.05; done`);
  lines.push("echo all-started");
  if (!endsItself) lines.push("until false; do sleep 0.2; done");
  return { command: lines.join("\n"), readies };
}
