// case_volumes.ts (pure): which directories fold case, from probe answers given as data (Linux,
// macOS, Windows shapes).

import { assert, assertEquals } from "../../_assert.ts";
import { caseSwapped, CaseVolumes } from "../../../lib/core/path/case_volumes.ts";
import { pathRulesFor, POSIX_PATHS } from "../../../lib/core/path/path_rules.ts";
import { describePlatform } from "../../../lib/core/platform/platform.ts";
import { allowingDir } from "../../../lib/core/path/confinement.ts";

const linux = describePlatform("linux");
const darwin = describePlatform("darwin");
const windows = describePlatform("windows");

Deno.test("caseSwapped swaps every letter, and gives nothing for names without cased letters", () => {
  assertEquals(caseSwapped("Read.me"), "rEAD.ME");
  assertEquals(caseSwapped("a1_B"), "A1_b");
  assertEquals(caseSwapped("Ärger"), "äRGER");
  assertEquals(caseSwapped("123_-."), undefined);
  // ß upper-cases to SS: not the same name folded, so it stays and the rest is swapped.
  assertEquals(caseSwapped("ßa"), "ßA");
  assertEquals(caseSwapped("ß"), undefined);
});

Deno.test("a folding directory under a case-sensitive / folds below itself only", () => {
  const volumes = new CaseVolumes(linux);
  volumes.record("/", false);
  volumes.record("/mnt", false);
  volumes.record("/mnt/usb", true);
  assertEquals(volumes.key("/mnt/usb/Docs/A.txt"), "/mnt/usb/docs/a.txt");
  assertEquals(volumes.key("/mnt/USB/Docs/A.txt"), "/mnt/USB/Docs/A.txt");
  assertEquals(volumes.key("/home/A.txt"), "/home/A.txt");
  assert(volumes.foldsIn("/mnt/usb/Docs"));
  assert(!volumes.foldsIn("/mnt"));
  assert(volumes.probed("/mnt/usb") && !volumes.probed("/mnt/usb/docs"));
});

Deno.test("a case-sensitive volume under a folding / (macOS) keeps case below it", () => {
  const volumes = new CaseVolumes(darwin);
  volumes.record("/Volumes/Dev", false);
  // /Volumes folds (the default): any spelling of the mount point reaches the volume.
  assertEquals(volumes.key("/volumes/DEV/Src/A.ts"), "/volumes/dev/Src/A.ts");
  assertEquals(volumes.key("/Volumes/Dev/Src/A.ts"), "/volumes/dev/Src/A.ts");
  assertEquals(volumes.key("/Users/Me/A.ts"), "/users/me/a.ts");
});

Deno.test("a deeper answer overrides, and an undecided probe inherits its parent's", () => {
  const volumes = new CaseVolumes(linux);
  volumes.record("/data", true);
  volumes.record("/data/Strict", false);
  volumes.record("/data/strict/Empty", undefined);
  assertEquals(volumes.key("/data/STRICT/Empty/X"), "/data/strict/Empty/X");
  assertEquals(volumes.key("/data/Other/X"), "/data/other/x");
});

Deno.test("Windows: drive letters never compare with case; a case-sensitive folder keeps it", () => {
  const volumes = new CaseVolumes(windows);
  volumes.record("C:\\src\\linux", false);
  assertEquals(volumes.key("c:\\SRC\\Linux\\Makefile"), "c:\\src\\linux\\Makefile");
  assertEquals(volumes.key("C:\\Users\\Me"), "c:\\users\\me");
});

Deno.test("rules over volumes: POSIX_PATHS itself until a probe disagrees with the default", () => {
  const volumes = new CaseVolumes(linux);
  const rules = pathRulesFor(linux, volumes);
  volumes.record("/home", false);
  assert(volumes.uniform);
  assertEquals(rules.key("/home/A"), "/home/A");
  assertEquals(rules.relativeTo("/home", "/x"), POSIX_PATHS.relativeTo("/home", "/x"));
  volumes.record("/mnt/usb", true);
  assert(!volumes.uniform);
  assertEquals(rules.key("/mnt/usb/A"), "/mnt/usb/a");
  assertEquals(rules.key("/home/A"), "/home/A");
});

Deno.test("rules over volumes: containment, below and relative paths fold where the volume does", () => {
  const volumes = new CaseVolumes(linux);
  const rules = pathRulesFor(linux, volumes);
  volumes.record("/mnt/usb", true);
  assert(rules.isInside("/mnt/usb/proj/x", "/mnt/usb/Proj"));
  assert(!rules.isInside("/mnt/usb/proj2/x", "/mnt/usb/Proj"));
  assert(!rules.isInside("/home/me/x", "/home/Me"));
  assert(rules.isInside("/home/Me/x", "/home/Me"));
  assertEquals(rules.below("/mnt/usb/Proj", "/mnt/usb/PROJ/Sub/F"), "Sub/F");
  assertEquals(rules.relativeTo("/mnt/usb/Proj", "/mnt/usb/proj/a"), "a");
  assertEquals(rules.relativeTo("/mnt/usb/Proj", "/mnt/usb/proj"), ".");
  assertEquals(rules.relativeTo("/home/Me", "/home/me/a"), "/home/me/a");
  const allowed = [{
    backendId: "local",
    path: "/mnt/usb/Proj",
    url: "/mnt/usb/Proj",
    paths: rules,
  }];
  assert(allowingDir(allowed, "local", "/mnt/usb/PROJ/a.txt"));
  assert(!allowingDir(allowed, "local", "/mnt/USB/Proj/a.txt"));
});
