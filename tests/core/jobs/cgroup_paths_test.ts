// cgroup_paths.ts (pure): mountinfo and /proc/PID/cgroup texts parsed into the cgroup v2 and v1
// bases a job's cgroup is made under.

import { assertEquals } from "../../_assert.ts";
import {
  cgroupBases,
  cgroupDirectory,
  isJobCgroupPath,
  parseMountinfo,
  parseProcCgroup,
  splitJobCookie,
  underCgroupMount,
} from "../../../lib/core/jobs/cgroup_paths.ts";

// This machine's shape: v1 controllers each on their own mount, a cgroup2 "unified" mount beside
// them, and the memory controller at a nested path.
const HYBRID_MOUNTINFO = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer",
  "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:5 - cgroup cgroup rw,pids",
  "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
  "",
].join("\n");
const HYBRID_CGROUP = [
  "9:name=systemd:/",
  "8:pids:/",
  "6:freezer:/",
  "4:memory:/process_api/3a23",
  "1:cpu,cpuacct:/",
  "0::/",
].join("\n");

Deno.test("parseMountinfo finds the cgroup2 mount and each v1 controller's mount", () => {
  const mounts = parseMountinfo(HYBRID_MOUNTINFO);
  assertEquals(mounts.v2, { point: "/sys/fs/cgroup/unified", root: "/" });
  assertEquals(mounts.v1.freezer, { point: "/sys/fs/cgroup/freezer", root: "/" });
  assertEquals(mounts.v1.cpuacct, { point: "/sys/fs/cgroup/cpu,cpuacct", root: "/" });
  // Options that are not controllers (xattr is one word, name=systemd has "=") are skipped or not
  // confused with controllers we use.
  assertEquals(mounts.v1.memory?.point, "/sys/fs/cgroup/memory");
  assertEquals("name=systemd" in mounts.v1, false);
  assertEquals(parseMountinfo("garbage\n\n1 2 3\n"), { v1: {} });
});

Deno.test("parseMountinfo decodes octal escapes and keeps a bind-mounted subtree's root", () => {
  const mounts = parseMountinfo(
    "50 1 0:40 /docker/abc /sys/fs/cgroup/my\\040dir rw - cgroup2 cgroup2 rw\n",
  );
  assertEquals(mounts.v2, { point: "/sys/fs/cgroup/my dir", root: "/docker/abc" });
});

Deno.test("parseProcCgroup reads the unified line and every v1 controller of a line", () => {
  const own = parseProcCgroup(HYBRID_CGROUP);
  assertEquals(own.v2, "/");
  assertEquals(own.v1.memory, "/process_api/3a23");
  assertEquals(own.v1.cpu, "/");
  assertEquals(own.v1.cpuacct, "/");
  assertEquals(own.v1["name=systemd"], "/");
  assertEquals(
    parseProcCgroup("0::/user.slice/user-1000.slice/session-2.scope\n").v2,
    "/user.slice/user-1000.slice/session-2.scope",
  );
  assertEquals(parseProcCgroup("nonsense"), { v1: {} });
});

Deno.test("cgroupDirectory joins the mount point and the path below the mount's root", () => {
  const mount = { point: "/sys/fs/cgroup", root: "/docker/abc" };
  assertEquals(cgroupDirectory(mount, "/docker/abc/app"), "/sys/fs/cgroup/app");
  assertEquals(cgroupDirectory(mount, "/docker/abc"), "/sys/fs/cgroup");
  // A cgroup the mount does not show.
  assertEquals(cgroupDirectory(mount, "/docker/abcd"), undefined);
  assertEquals(cgroupDirectory(mount, "/other"), undefined);
  assertEquals(cgroupDirectory({ point: "/sys/fs/cgroup/", root: "/" }, "/"), "/sys/fs/cgroup");
});

Deno.test("cgroupBases: this machine's shape has a v2 base and v1 freezer, pids, memory bases", () => {
  const bases = cgroupBases(parseMountinfo(HYBRID_MOUNTINFO), parseProcCgroup(HYBRID_CGROUP));
  assertEquals(bases, {
    v2: "/sys/fs/cgroup/unified",
    v1: {
      freezer: "/sys/fs/cgroup/freezer",
      pids: "/sys/fs/cgroup/pids",
      memory: "/sys/fs/cgroup/memory/process_api/3a23",
    },
  });
});

Deno.test("cgroupBases says why there is no v2 base", () => {
  const v1Only = parseMountinfo(HYBRID_MOUNTINFO.replace(/.*cgroup2.*\n/, ""));
  assertEquals(
    cgroupBases(v1Only, parseProcCgroup(HYBRID_CGROUP)).v2Missing,
    "no cgroup2 file system is mounted",
  );
  const mounts = parseMountinfo(HYBRID_MOUNTINFO);
  assertEquals(
    cgroupBases(mounts, parseProcCgroup("6:freezer:/\n")).v2Missing,
    "this process is in no cgroup v2 group",
  );
  const bound = parseMountinfo("41 31 0:38 /a /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  assertEquals(
    cgroupBases(bound, parseProcCgroup("0::/b\n")).v2Missing,
    "its cgroup /b is outside the cgroup2 mount at /sys/fs/cgroup",
  );
});

Deno.test("isJobCgroupPath accepts only the cgroup named for that job of that server", () => {
  const cookie = "0123456789abcdef/4242-7";
  const cases: [string, boolean][] = [
    ["/sys/fs/cgroup/unified/anchorfs-0123456789abcdef/job-4242-7", true],
    ["/sys/fs/cgroup/user.slice/app.slice/anchorfs-0123456789abcdef-4242-7.scope", true],
    // Another job of the same server, another server, a parent, a mount root.
    ["/sys/fs/cgroup/unified/anchorfs-0123456789abcdef/job-4242-8", false],
    ["/sys/fs/cgroup/unified/anchorfs-fedcba9876543210/job-4242-7", false],
    ["/sys/fs/cgroup/unified/anchorfs-0123456789abcdef", false],
    ["/sys/fs/cgroup/unified", false],
    ["/sys/fs/cgroup/system.slice", false],
    // Tricks: relative, `..` steps, empty steps.
    ["sys/anchorfs-0123456789abcdef/job-4242-7", false],
    ["/sys/fs/cgroup/x/../anchorfs-0123456789abcdef/job-4242-7/..", false],
    ["/sys/fs/cgroup//anchorfs-0123456789abcdef/job-4242-7", false],
  ];
  for (const [path, ok] of cases) assertEquals(isJobCgroupPath(path, cookie), ok, path);
  assertEquals(
    isJobCgroupPath("/sys/fs/cgroup/anchorfs-0123456789abcdef/job-4242-7", undefined),
    false,
  );
  assertEquals(isJobCgroupPath("/sys/fs/cgroup/anchorfs-x/job-1-1", "not a cookie"), false);
});

Deno.test("splitJobCookie and underCgroupMount", () => {
  assertEquals(splitJobCookie("ab12/7-1"), { instance: "ab12", id: "7-1" });
  assertEquals(splitJobCookie("ab12/7-1,cd34/8-2"), undefined);
  assertEquals(splitJobCookie("../7-1"), undefined);
  const mounts = parseMountinfo(HYBRID_MOUNTINFO);
  assertEquals(underCgroupMount("/sys/fs/cgroup/unified/anchorfs-a/job-1-1", mounts), true);
  assertEquals(underCgroupMount("/sys/fs/cgroup/freezer/anchorfs-a/job-1-1", mounts), true);
  assertEquals(underCgroupMount("/sys/fs/cgroup/unified", mounts), false);
  assertEquals(underCgroupMount("/tmp/anchorfs-a/job-1-1", mounts), false);
});
