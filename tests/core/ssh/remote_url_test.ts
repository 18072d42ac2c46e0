// remote_url.ts (pure): ssh:// URLs parsed, and a mistyped ssh: prefix is a malformed remote path,
// not a local file name.

import { assertEquals, assertStringIncludes, assertThrows } from "../../_assert.ts";
import { isRemoteUrl, parseRemoteUrl } from "../../../lib/core/ssh/remote_url.ts";
import type { AnchorError } from "../../../lib/core/errors.ts";

Deno.test("a mistyped ssh: prefix is a malformed remote path, not a local file name", () => {
  for (const raw of ["ssh:/box/etc/hosts", "ssh:box/etc/hosts", "SFTP:/x"]) {
    assertEquals(isRemoteUrl(raw), true, raw);
    const e = assertThrows(() => parseRemoteUrl(raw)) as AnchorError;
    assertEquals(e.code, "INVALID_REMOTE_PATH", raw);
    assertStringIncludes(e.hint!, "ssh://[user@]host[:port]/absolute/path");
  }
  assertEquals(isRemoteUrl("src/ssh:x"), false);
  assertEquals(isRemoteUrl("sshd_config"), false);
  assertEquals(parseRemoteUrl("ssh://box/etc/hosts").path, "/etc/hosts");
});
