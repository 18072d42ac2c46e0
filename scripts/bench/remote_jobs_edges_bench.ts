// deno-lint-ignore-file no-console
// Benchmark: jobs on an ssh:// host through the real server (`deno run main.ts mcp`, v2 client)
// against a loopback sshd with OpenSSH's default MaxSessions 10: the server's peak RSS while a
// remote job streams N MB into its log, the wall time of `jobs kill` on a job whose children
// detached (setsid, nohup, a double fork), the time from a cut connection to the job's `lost`
// record (and the next call's), and 12 jobs started at once. Prints Markdown.
// Usage: deno run -A scripts/bench/remote_jobs_edges_bench.ts [MB...]   (default: 50 500)

import { startServer, tempDir, type TestServer } from "../../tests/_harness.ts";
import { createSshWorld, type SshWorld } from "../../tests/backends/ssh/_sshd.ts";

const sizes = Deno.args.length > 0 ? Deno.args.map(Number) : [50, 500];

function memoryKb(pid: number): { hwm: number; rss: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { hwm: kb("VmHWM"), rss: kb("VmRSS") };
}

async function withServer<T>(
  world: SshWorld,
  run: (s: TestServer, cwd: string, dir: string) => Promise<T>,
): Promise<T> {
  await using remote = await tempDir("anchorfs-rjob-bench-");
  await using local = await tempDir("anchorfs-rjob-bench-local-");
  await using state = await tempDir("anchorfs-rjob-bench-state-");
  await using s = await startServer({
    client: "v2",
    args: ["--path", local.path, "--state-dir", state.path, "--foreground-window", "0.5"],
    env: world.env({ SSH_AUTH_SOCK: "" }),
  });
  return await run(s, `ssh://box${remote.path}`, remote.path);
}

const ms = (t0: number) => Math.round(performance.now() - t0);
const idOf = (text: string) => /job (\d+-\d+)/.exec(text)![1]!;

async function untilEnded(s: TestServer, id: string): Promise<string> {
  for (;;) {
    const r = await s.call("jobs", { action: "wait", id, timeout_seconds: 50 });
    if (!r.text.includes("still running")) return r.text;
  }
}

async function bigOutput(world: SshWorld, mb: number): Promise<string> {
  return await withServer(world, async (s, cwd) => {
    await s.call("shell", { command: "echo warm", cwd });
    const before = memoryKb(s.pid!);
    const t0 = performance.now();
    const r = await s.call("shell", {
      command: `yes 0123456789abcdef0123456789abcdef | head -c ${mb}000000; echo END`,
      cwd,
    });
    const text = await untilEnded(s, idOf(r.text));
    const after = memoryKb(s.pid!);
    const ok = text.includes("succeeded") && text.trimEnd().endsWith("END");
    return `| ${mb} MB of output | ${ms(t0)} ms | RSS ${Math.round(before.rss / 1024)} MB → ` +
      `peak ${Math.round(after.hwm / 1024)} MB | ${ok ? "succeeded, tail ends with END" : text} |`;
  });
}

async function detachedKill(world: SshWorld): Promise<string> {
  return await withServer(world, async (s, cwd, dir) => {
    const marker = `${Date.now() % 100000}.7`;
    const r = await s.call("shell", {
      command: `(setsid sleep ${marker} &); nohup sleep ${marker} >/dev/null 2>&1 & ` +
        `sh -c 'sh -c "setsid sleep ${marker} </dev/null >/dev/null 2>&1 &" &'; ` +
        "touch started; until false; do sleep 0.2; done",
      cwd,
    });
    while (!(await Deno.stat(`${dir}/started`).catch(() => undefined))) {
      await new Promise((f) => setTimeout(f, 50));
    }
    await new Promise((f) => setTimeout(f, 300));
    const t0 = performance.now();
    const k = await s.call("jobs", { action: "kill", id: idOf(r.text) });
    const took = ms(t0);
    const ps = new Deno.Command("ps", { args: ["-eo", "stat=,args="], stdout: "piped" });
    const left = new TextDecoder().decode(ps.outputSync().stdout).split("\n")
      .filter((l) => l.includes(marker) && !l.startsWith("Z")).length;
    return `| \`jobs kill\`, 3 detached sleeps + loop | ${took} ms | ${left} left on the host | ${
      k.text.split("\n")[0]!.replace(/\(`.*`\)/, "").slice(0, 90)
    } |`;
  });
}

await using world = await createSshWorld({
  config: (port) => `Host box\n  HostName 127.0.0.1\n  Port ${port}\n`,
  maxSessions: 10,
});
console.log(`loopback sshd, MaxSessions 10, ${new Date().toISOString()}, load ${loadavg()}\n`);
console.log("| case | wall time | memory / result | notes |");
console.log("| ---- | --------: | --------------- | ----- |");
for (const mb of sizes) console.log(await bigOutput(world, mb));
console.log(await detachedKill(world));
console.log(await cutConnection(world));
console.log(await manyJobs(world));

function loadavg(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

async function cutConnection(world: SshWorld): Promise<string> {
  return await withServer(world, async (s, cwd) => {
    const r = await s.call("shell", { command: "until false; do sleep 0.2; done", cwd });
    const id = idOf(r.text);
    const t0 = performance.now();
    await world.sshd.killSessions();
    const text = await untilEnded(s, id);
    const lost = ms(t0);
    const t1 = performance.now();
    const next = await s.call("shell", { command: "echo again", cwd });
    return `| connection cut (sshd session killed) → \`lost\` | ${lost} ms | ${
      text.includes("LOST") ? "lost" : text.slice(0, 60)
    } | next shell call ${ms(t1)} ms: ${next.isError ? "failed" : "ok"} |`;
  });
}

async function manyJobs(world: SshWorld): Promise<string> {
  return await withServer(world, async (s, cwd, dir) => {
    const t0 = performance.now();
    const rs = await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) =>
          s.call("shell", { command: `echo ${i}; until [ -f stop ]; do sleep 0.1; done`, cwd }),
      ),
    );
    const promoted = rs.filter((r) => r.text.includes("still running")).length;
    const took = ms(t0);
    const t1 = performance.now();
    const k = await s.call("jobs", { action: "kill", id: idOf(rs[0]!.text) });
    const kill = ms(t1);
    await Deno.writeTextFile(`${dir}/stop`, "");
    for (const r of rs.slice(1)) await untilEnded(s, idOf(r.text));
    return `| 12 jobs at once (MaxSessions 10) | ${took} ms | ${promoted}/12 running | kill with ` +
      `every channel of the first connection taken: ${kill} ms, ${
        k.isError ? "failed" : "killed"
      } |`;
  });
}
