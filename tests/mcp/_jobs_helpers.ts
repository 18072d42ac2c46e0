// Shared helpers for the shell/jobs protocol tests: a server with a short foreground window and
// its own state dir, notification capture in both eras, and /proc process counting.

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type ClientKind, startServer, tempDir, type TestServer } from "../_harness.ts";

export interface JobsServer extends AsyncDisposable {
  server: TestServer;
  dir: string;
  stateDir: string;
  /** Resolves with the first resources/updated for `uri` (recorded from the start). */
  updated(uri: string): Promise<void>;
  updates: string[];
}

export async function startJobsServer(
  kind: ClientKind,
  options: { window?: number; env?: Record<string, string>; args?: string[] } = {},
): Promise<JobsServer> {
  const dir = await tempDir("anchorfs-jobs-");
  const state = await tempDir("anchorfs-state-");
  const server = await startServer({
    client: kind,
    args: [
      "--path",
      dir.path,
      "--foreground-window",
      String(options.window ?? 0.5),
      "--state-dir",
      state.path,
      ...(options.args ?? []),
    ],
    ...(options.env && { env: options.env }),
  });
  const updates: string[] = [];
  const waiters: { uri: string; resolve: () => void }[] = [];
  // deno-lint-ignore no-explicit-any
  const onUpdated = (n: any) => {
    const uri = n.params.uri as string;
    updates.push(uri);
    for (const w of waiters.filter((w) => w.uri === uri)) w.resolve();
  };
  if (kind === "v1") {
    server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, onUpdated);
  } else server.client.setNotificationHandler("notifications/resources/updated", onUpdated);
  return {
    server,
    dir: dir.path,
    stateDir: state.path,
    updates,
    updated: (uri) =>
      updates.includes(uri)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ uri, resolve })),
    async [Symbol.asyncDispose]() {
      await server.close();
      await dir[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export function livePidsMatching(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (!cmdline.includes(marker)) continue;
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state !== "Z") pids.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Polls until `check` is true or `ms` passes; returns the last result. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** The job id in a promoted shell result. */
// deno-lint-ignore no-explicit-any
export function jobIdOf(raw: any): string {
  // deno-lint-ignore no-explicit-any
  const link = raw.content.find((c: any) => c.type === "resource_link");
  if (!link) throw new Error(`no resource_link in ${JSON.stringify(raw)}`);
  return String(link.uri).replace("anchorfs://jobs/", "");
}

export function uniqueMarker(): string {
  return `${300 + Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1e6)}`;
}

/** A shell snippet that takes about `seconds` (a bare `sleep` is refused by the shell policy). */
export function pause(seconds: number): string {
  return `for _ in $(seq ${Math.max(1, Math.round(seconds * 10))}); do sleep 0.1; done`;
}

/** Whether anything exists at `path` (a file, a directory, a cgroup). */
export function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` is a live process (a zombie counts as dead: PID 1 here may not reap it). */
export function processAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
