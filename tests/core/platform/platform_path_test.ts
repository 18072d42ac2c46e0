// platform_path.ts (pure): absolute paths, normalizing, keys, inside-checks and resolving per
// platform (Windows drives and UNC, case folding on macOS and Windows).

import { assertEquals } from "../../_assert.ts";
import { describePlatform } from "../../../lib/core/platform/platform.ts";
import {
  isAbsolutePath,
  isInsidePath,
  normalizePath,
  pathKey,
  resolvePath,
  samePath,
} from "../../../lib/core/platform/platform_path.ts";

const linux = describePlatform("linux");
const mac = describePlatform("darwin");
const windows = describePlatform("windows");

Deno.test("isAbsolutePath: drive letters and UNC on Windows, a leading / elsewhere", () => {
  const cases: [typeof linux, string, boolean][] = [
    [linux, "/srv/app", true],
    [linux, "srv/app", false],
    [linux, "C:\\x", false],
    [windows, "C:\\Users\\me", true],
    [windows, "c:/Users/me", true],
    [windows, "\\\\server\\share\\dir", true],
    [windows, "//server/share/dir", true],
    [windows, "\\\\?\\C:\\very\\long", true],
    [windows, "C:relative", false],
    [windows, "\\rooted-on-current-drive", false],
    [windows, "src\\app.ts", false],
  ];
  for (const [p, path, expected] of cases) {
    assertEquals(isAbsolutePath(p, path), expected, `${p.os} ${path}`);
  }
});

Deno.test("normalizePath: one separator, no . or .., upper-case drive, UNC root kept", () => {
  const cases: [typeof linux, string, string][] = [
    [linux, "/a//b/./c/../d/", "/a/b/d"],
    [linux, "a/../../b", "../b"],
    [linux, "/../x", "/x"],
    [linux, "", "."],
    [windows, "c:/Users//me/./src/../x", "C:\\Users\\me\\x"],
    [windows, "C:\\", "C:\\"],
    [windows, "C:\\..\\..", "C:\\"],
    [windows, "//server/share/a/../b", "\\\\server\\share\\b"],
    [windows, "\\\\server\\share", "\\\\server\\share\\"],
    [windows, "src/app.ts", "src\\app.ts"],
    [windows, "d:rel\\x", "D:rel\\x"],
    [windows, "\\\\?\\c:\\long\\path", "\\\\?\\C:\\long\\path"],
  ];
  for (const [p, path, expected] of cases) {
    assertEquals(normalizePath(p, path), expected, `${p.os} ${path}`);
  }
});

Deno.test("pathKey/samePath: case folded on macOS and Windows only", () => {
  assertEquals(samePath(windows, "C:\\Src\\App.ts", "c:/src/app.ts"), true);
  assertEquals(samePath(mac, "/Users/Me/x", "/users/me/x/"), true);
  assertEquals(samePath(linux, "/home/Me", "/home/me"), false);
  assertEquals(pathKey(linux, "/a/./B"), "/a/B");
});

Deno.test("isInsidePath: by whole segments, case-insensitively where the platform is", () => {
  assertEquals(isInsidePath(linux, "/srv/app", "/srv/app/src/x.ts"), true);
  assertEquals(isInsidePath(linux, "/srv/app", "/srv/application"), false);
  assertEquals(isInsidePath(linux, "/srv/app", "/srv/app/../secret"), false);
  assertEquals(isInsidePath(windows, "C:\\Work", "c:/work/src"), true);
  assertEquals(isInsidePath(windows, "C:\\", "C:\\anything"), true);
  assertEquals(isInsidePath(windows, "C:\\Work", "D:\\Work\\x"), false);
});

Deno.test("resolvePath: relative to a base; \\x takes the base's drive; D:x its drive's root", () => {
  assertEquals(resolvePath(linux, "/srv/app", "src/../lib"), "/srv/app/lib");
  assertEquals(resolvePath(linux, "/srv/app", "/etc"), "/etc");
  assertEquals(resolvePath(windows, "C:\\work", "src\\x.ts"), "C:\\work\\src\\x.ts");
  assertEquals(resolvePath(windows, "C:\\work", "\\tmp"), "C:\\tmp");
  assertEquals(resolvePath(windows, "\\\\srv\\share\\w", "\\tmp"), "\\\\srv\\share\\tmp");
  assertEquals(resolvePath(windows, "C:\\work", "c:sub"), "C:\\work\\sub");
  assertEquals(resolvePath(windows, "C:\\work", "D:sub"), "D:\\sub");
  assertEquals(resolvePath(windows, "C:\\work", "D:/abs"), "D:\\abs");
});
