// The job URI scheme's one home: formatting and parsing round-trip, the tolerated log forms,
// and what is no job URI.

import { assertEquals } from "../../_assert.ts";
import {
  formatJobUri,
  hasAnchorfsScheme,
  isJobId,
  JOB_URI_TEMPLATE,
  jobIdOfResource,
  parseJobUri,
} from "../../../lib/core/jobs/job_uri.ts";

Deno.test("formatJobUri gives anchorfs://jobs/ID, and parseJobUri reads the id back", () => {
  assertEquals(formatJobUri("123-4"), "anchorfs://jobs/123-4");
  assertEquals(parseJobUri(formatJobUri("123-4")), { id: "123-4" });
  assertEquals(JOB_URI_TEMPLATE, "anchorfs://jobs/{id}");
});

Deno.test("parseJobUri tolerates a trailing slash, /log and /output, and ignores the scheme's case", () => {
  for (
    const uri of ["anchorfs://jobs/9-1/", "anchorfs://jobs/9-1/log", "anchorfs://jobs/9-1/output"]
  ) {
    assertEquals(parseJobUri(uri), { id: "9-1" }, uri);
  }
  assertEquals(parseJobUri("ANCHORFS://JOBS/9-1"), { id: "9-1" });
});

Deno.test("parseJobUri refuses what names no job: no id, another name, another scheme", () => {
  for (
    const uri of [
      "anchorfs://jobs/",
      "anchorfs://jobs",
      "anchorfs://other/9-1",
      "anchorfs://jobs/9-1/tail",
      "ssh://jobs/9-1",
      "jobs/9-1",
    ]
  ) {
    assertEquals(parseJobUri(uri), undefined, uri);
  }
});

Deno.test("an id is parsed as written; isJobId says whether it has a job id's shape", () => {
  assertEquals(parseJobUri("anchorfs://jobs/latest"), { id: "latest" });
  assertEquals([isJobId("12-3"), isJobId("latest"), isJobId("12-"), isJobId("-3")], [
    true,
    false,
    false,
    false,
  ]);
});

Deno.test("hasAnchorfsScheme sees any anchorfs:// path; jobIdOfResource reads exact resource URIs", () => {
  assertEquals([hasAnchorfsScheme("Anchorfs://x"), hasAnchorfsScheme("/anchorfs://x")], [
    true,
    false,
  ]);
  assertEquals(jobIdOfResource("anchorfs://jobs/1-2"), "1-2");
  assertEquals(jobIdOfResource("ANCHORFS://jobs/1-2"), undefined);
});
