// Every relative link in README.md and docs/ reaches a file of the repository, every `#anchor`
// (in the same file or another Markdown file) names a heading that exists, and every repository
// path the prose names in inline code (`lib/core/errors.ts`) exists.

import { assertEquals } from "../_assert.ts";
import { REPO_ROOT } from "../_harness.ts";
import { anchors, codeSamples, links, readDocs, slug } from "./_markdown.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("slug() follows GitHub's anchors for headings with code, dashes and punctuation", () => {
  assertEquals(
    slug("`view` — read files, list directories, search contents"),
    "view--read-files-list-directories-search-contents",
  );
  assertEquals(slug("Glob grammar (`pattern`)"), "glob-grammar-pattern");
  assertEquals(slug("Jobs on `ssh://` hosts"), "jobs-on-ssh-hosts");
});

Deno.test("every relative link in README.md and docs/ resolves, anchors included", async () => {
  const docs = await readDocs();
  const anchorsOf = new Map<string, Set<string>>();
  for (const doc of docs) anchorsOf.set(doc.path, anchors(doc.text));
  const broken: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    for (const { target, line } of links(doc.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      checked++;
      const [file = "", anchor] = target.split("#", 2) as [string, string | undefined];
      const base = doc.path.includes("/") ? doc.path.slice(0, doc.path.lastIndexOf("/") + 1) : "";
      const resolved = file === "" ? doc.path : new URL(file, `file:///${base}`).pathname.slice(1);
      const where = `${doc.path}:${line}: ${target}`;
      if (file !== "" && !(await exists(`${REPO_ROOT}/${resolved}`))) {
        broken.push(`${where} (no file ${resolved})`);
        continue;
      }
      if (anchor === undefined) continue;
      const known = anchorsOf.get(resolved) ??
        (resolved.endsWith(".md")
          ? anchors(await Deno.readTextFile(`${REPO_ROOT}/${resolved}`))
          : undefined);
      if (!known?.has(anchor)) broken.push(`${where} (no heading "#${anchor}" in ${resolved})`);
    }
  }
  assertEquals(broken, []);
  assertEquals(checked > 30, true, `only ${checked} relative links found: is the scan broken?`);
});

/** An inline code span that is only a path inside the repository (placeholders left out). */
const REPO_PATH = /^(?:\.\/)?((?:lib|tests|scripts|docs|packaging|\.ci|\.github)\/[\w./-]*)$/;

Deno.test("every repository path named in inline code in README.md and docs/ exists", async () => {
  const missing: string[] = [];
  let checked = 0;
  for (const doc of await readDocs()) {
    // Benchmark sections are dated records: they name files as they were on that date.
    if (doc.path === "docs/benchmarks.md") continue;
    for (const sample of codeSamples(doc.text)) {
      const path = REPO_PATH.exec(sample.text.trim())?.[1];
      if (sample.fenced || path === undefined) continue;
      checked++;
      if (!(await exists(`${REPO_ROOT}/${path}`))) {
        missing.push(`${doc.path}:${sample.line}: ${path}`);
      }
    }
  }
  assertEquals(missing, []);
  assertEquals(checked > 20, true, `only ${checked} paths found: is the scan broken?`);
});

Deno.test("the link scan sees a broken link and a broken anchor (the check can fail)", () => {
  const text = "# Title\n\nSee [a](#title), [b](#nope) and `[c](#code)`.\n```\n[d](#fenced)\n```\n";
  assertEquals(links(text).map((l) => l.target), ["#title", "#nope"]);
  assertEquals(anchors(text), new Set(["title"]));
});
