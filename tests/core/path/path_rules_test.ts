// path_rules.ts (pure): POSIX, case-folding POSIX and Windows path arithmetic (drives, UNC,
// separators, case, file URIs); table and property tests.

import fc from "fast-check";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { describePlatform } from "../../../lib/core/platform/platform.ts";
import {
  MACOS_PATHS,
  pathRulesFor,
  POSIX_PATHS,
  WINDOWS_PATHS,
} from "../../../lib/core/path/path_rules.ts";
import { allowingDir, intersectAllowed } from "../../../lib/core/path/confinement.ts";

const win = WINDOWS_PATHS;

Deno.test("pathRulesFor: POSIX on Linux, case-folding POSIX on macOS, Windows rules on Windows", () => {
  assertEquals(pathRulesFor(describePlatform("linux")), POSIX_PATHS);
  assertEquals(pathRulesFor(describePlatform("darwin")), MACOS_PATHS);
  assertEquals(pathRulesFor(describePlatform("windows")), WINDOWS_PATHS);
  assertEquals([MACOS_PATHS.style, MACOS_PATHS.foldsCase], ["posix", true]);
  assertEquals([win.style, win.sep, win.foldsCase], ["windows", "\\", true]);
});

Deno.test("POSIX rules keep the POSIX arithmetic: resolve, parent, join, relative display", () => {
  const p = POSIX_PATHS;
  assertEquals(p.resolve("/srv/app", "src/../lib/a.ts"), "/srv/app/lib/a.ts");
  assertEquals(p.resolve("/srv/app", "/etc//hosts"), "/etc/hosts");
  assertEquals(p.normalize("/a/./b/"), "/a/b");
  assertEquals([p.parent("/a/b"), p.parent("/a"), p.parent("/")], ["/a", "/", "/"]);
  assertEquals([p.baseName("/a/b.txt"), p.baseName("/")], ["b.txt", ""]);
  assertEquals([p.join("/", "a/b"), p.join("/srv", "a")], ["/a/b", "/srv/a"]);
  assertEquals(p.relativeTo("/srv", "/srv/a/b"), "a/b");
  assertEquals(p.relativeTo("/srv", "/srv"), ".");
  assertEquals(p.relativeTo("/srv", "/etc/x"), "/etc/x");
  assertEquals([p.below("/srv", "/srv/a"), p.below("/srv", "/srv")], ["a", undefined]);
  assertEquals([p.key("/Srv/A"), p.isInside("/srv/a", "/Srv")], ["/Srv/A", false]);
  assertEquals(p.fromFileUri("file:///home/me/a%20b"), "/home/me/a b");
  assertEquals(p.refusal("C:foo"), undefined);
});

Deno.test("Windows rules: drive letters, both separators, .., UNC shares, device paths", () => {
  assertEquals(win.isAbsolute("C:\\proj\\a.txt"), true);
  assertEquals(win.isAbsolute("c:/proj/a.txt"), true);
  assertEquals(win.isAbsolute("\\\\server\\share\\x"), true);
  assertEquals(win.isAbsolute("sub\\b.txt"), false);
  assertEquals(win.isAbsolute("C:foo"), false);
  assertEquals(win.normalize("c:/proj/a.txt"), "C:\\proj\\a.txt");
  assertEquals(win.resolve("C:\\proj", "sub\\..\\a.txt"), "C:\\proj\\a.txt");
  assertEquals(win.resolve("C:\\proj", "..\\..\\..\\x"), "C:\\x");
  assertEquals(win.resolve("C:\\proj", "\\tmp\\x"), "C:\\tmp\\x");
  assertEquals(win.resolve("C:\\proj", "//server/share/x"), "\\\\server\\share\\x");
  assertEquals(win.normalize("\\\\?\\c:\\long\\path"), "\\\\?\\C:\\long\\path");
  assertEquals(win.parent("C:\\proj\\a.txt"), "C:\\proj");
  assertEquals(win.parent("C:\\proj"), "C:\\");
  assertEquals(win.parent("C:\\"), "C:\\");
  assertEquals(win.parent("\\\\server\\share\\x"), "\\\\server\\share\\");
  assertEquals(win.parent("\\\\server\\share\\"), "\\\\server\\share\\");
  assertEquals([win.baseName("C:\\proj\\a.txt"), win.baseName("C:\\")], ["a.txt", ""]);
  assertEquals(win.join("C:\\", "a/b.txt"), "C:\\a\\b.txt");
  assertEquals(win.join("C:\\proj", ".git"), "C:\\proj\\.git");
});

Deno.test("Windows rules compare without case, by whole components", () => {
  assertEquals(win.key("C:\\Proj\\A.txt"), win.key("c:/proj/a.TXT"));
  assertEquals(win.isInside("c:\\proj\\x", "C:\\Proj"), true);
  assertEquals(win.isInside("C:\\Proj", "C:\\Proj"), true);
  assertEquals(win.isInside("C:\\proj2\\x", "C:\\Proj"), false);
  assertEquals(win.isInside("D:\\proj\\x", "C:\\proj"), false);
  assertEquals(win.isInside("C:\\anything", "C:\\"), true);
  assertEquals(win.isInside("\\\\server\\share\\x", "\\\\SERVER\\Share"), true);
  assertEquals(win.isInside("\\\\server\\other\\x", "\\\\server\\share"), false);
  assertEquals(win.relativeTo("C:\\Proj", "c:\\proj\\sub\\b.txt"), "sub\\b.txt");
  assertEquals(win.relativeTo("C:\\proj", "C:\\proj"), ".");
  assertEquals(win.relativeTo("C:\\proj", "C:\\other\\b.txt"), "C:\\other\\b.txt");
  assertEquals(win.below("C:\\proj", "C:\\proj\\a.txt"), "a.txt");
  assertEquals(win.below("C:\\proj", "C:\\proj"), undefined);
  assertEquals([win.show("sub/b.txt"), win.slashed("C:\\proj\\x")], ["sub\\b.txt", "C:/proj/x"]);
});

Deno.test("Windows rules read client roots from file URIs as editors send them", () => {
  assertEquals(win.fromFileUri("file:///C:/Users/me/proj"), "C:\\Users\\me\\proj");
  assertEquals(win.fromFileUri("file:///c%3A/Users/me"), "C:\\Users\\me");
  // A share on another host is not a local root.
  assertEquals(win.fromFileUri("file://server/share/x"), undefined);
  assertEquals(win.fromFileUri("file:////server/share/x"), undefined);
  assertEquals(win.fromFileUri("file://localhost/C:/x"), "C:\\x");
  assertEquals(win.fromFileUri("https://example.com/x"), undefined);
  assertEquals(win.fromFileUri("file:///relative-looking"), undefined);
});

Deno.test("a drive-relative path is refused with its rooted spelling as the fix", () => {
  const error = win.refusal("C:foo\\bar.txt");
  assert(error !== undefined);
  assertEquals(error.code, "INVALID_PATH");
  assertStringIncludes(error.message, '"C:foo\\\\bar.txt"');
  assertStringIncludes(String(error.hint), '"C:\\\\foo\\\\bar.txt"');
  assertEquals(win.refusal("C:\\foo"), undefined);
  assertEquals(win.refusal("foo"), undefined);
});

Deno.test("macOS rules: POSIX spelling, containment and keys without case", () => {
  assertEquals(MACOS_PATHS.isInside("/users/me/proj/x", "/Users/Me/Proj"), true);
  assertEquals(MACOS_PATHS.isInside("/Users/Me/Proj2", "/Users/Me/Proj"), false);
  assertEquals(MACOS_PATHS.key("/Users/Me"), MACOS_PATHS.key("/users/me"));
  assertEquals(MACOS_PATHS.relativeTo("/Users/Me", "/users/me/src/a.ts"), "src/a.ts");
  assertEquals(MACOS_PATHS.resolve("/Users/me", "../x"), "/Users/x");
  assertEquals(MACOS_PATHS.parent("/Users"), "/");
});

Deno.test("confinement with folding rules: C:\\Proj allows c:\\proj\\x, not C:\\proj2", () => {
  const dir = { backendId: "local", path: "C:\\Proj", url: "C:\\Proj", paths: win };
  assertEquals(allowingDir([dir], "local", "c:\\proj\\x")?.path, "C:\\Proj");
  assertEquals(allowingDir([dir], "local", "C:\\proj2\\x"), undefined);
  const inner = { ...dir, path: "c:\\proj\\sub", url: "c:\\proj\\sub" };
  assertEquals(intersectAllowed([dir], [inner]).map((d) => d.path), ["c:\\proj\\sub"]);
  // One directory spelled twice is kept once.
  const again = { ...dir, path: "c:\\PROJ", url: "c:\\PROJ" };
  assertEquals(intersectAllowed([dir], [again]).length, 1);
});

const segment = fc.stringMatching(/^[A-Za-z0-9_ .-]{1,6}$/).filter((s) => s !== "." && s !== "..");

Deno.test("Windows rules: a path inside a base resolves back from its relative form", () => {
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 4 }),
      fc.array(segment, { maxLength: 4 }),
      fc.boolean(),
      (base, rest, upper) => {
        const root = win.normalize(`C:\\${base.join("\\")}`);
        const path = win.normalize(`c:/${[...base, ...rest].join("/")}`);
        const shown = upper ? root.toUpperCase() : root;
        assert(win.isInside(path, shown));
        const rel = win.relativeTo(shown, path);
        assertEquals(win.key(win.resolve(shown, rel)), win.key(path));
      },
    ),
  );
});
