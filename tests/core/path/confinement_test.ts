// lib/core/path/confinement.ts (pure): inside-checks by whole components, allowed roots per
// backend, nested roots intersected, and file URIs decoded.

import {
  type AllowedDir,
  allowingDir,
  fileUriPath,
  intersectAllowed,
  isPathInside,
} from "../../../lib/core/path/confinement.ts";
import { assertEquals } from "../../_assert.ts";

Deno.test("isPathInside compares whole path components, not text prefixes", () => {
  const cases: [string, string, boolean][] = [
    ["/a/b", "/a/b", true],
    ["/a/b/c.txt", "/a/b", true],
    ["/a/bc", "/a/b", false],
    ["/a/bc/d", "/a/b", false],
    ["/a", "/a/b", false],
    ["/a/b/c", "/a/b/", true],
    ["/etc/passwd", "/", true],
    ["/", "/", true],
  ];
  for (const [path, dir, expected] of cases) {
    assertEquals(isPathInside(path, dir), expected, `${path} in ${dir}`);
  }
});

const dir = (backendId: string, path: string): AllowedDir => ({ backendId, path, url: path });

Deno.test("allowingDir needs the same backend: a remote tree does not allow the same local path", () => {
  const allowed = [dir("local", "/p"), dir("ssh://u@box:22", "/srv")];
  assertEquals(allowingDir(allowed, "local", "/p/x")?.path, "/p");
  assertEquals(allowingDir(allowed, "local", "/srv/x"), undefined);
  assertEquals(allowingDir(allowed, "ssh://u@box:22", "/srv/x")?.path, "/srv");
  assertEquals(allowingDir(allowed, "ssh://u@other:22", "/srv/x"), undefined);
});

Deno.test("intersectAllowed keeps the deeper directory of nested pairs and drops disjoint ones", () => {
  const roots = [dir("local", "/home/me"), dir("local", "/tmp/x")];
  const allow = [dir("local", "/home/me/proj"), dir("local", "/opt"), dir("ssh://b", "/tmp/x")];
  assertEquals(intersectAllowed(roots, allow).map((d) => d.path), ["/home/me/proj"]);
  assertEquals(intersectAllowed([dir("local", "/a")], [dir("local", "/")]).map((d) => d.path), [
    "/a",
  ]);
  assertEquals(intersectAllowed([dir("local", "/a/b")], [dir("local", "/a/bc")]), []);
});

Deno.test("fileUriPath decodes local file URIs and rejects other schemes and hosts", () => {
  assertEquals(fileUriPath("file:///home/me/a%20b"), "/home/me/a b");
  assertEquals(fileUriPath("file://localhost/srv"), "/srv");
  assertEquals(fileUriPath("file://otherhost/srv"), undefined);
  assertEquals(fileUriPath("file:////otherhost/srv"), undefined);
  assertEquals(fileUriPath("https://example.com/x"), undefined);
  assertEquals(fileUriPath("not a uri"), undefined);
});
