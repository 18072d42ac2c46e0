// A module that loads on the first call needing it (listing, search, globs, outlines, the edit
// ops), that first call made with no file descriptor free, through the real server: the call
// answers an EMFILE error naming the module it could not load and what to do, the server stays
// up (in Deno 2.9.6 such a load panicked the whole process), and once descriptors are back the
// same calls load their modules and answer as usual (the scenario: _first_use_emfile.ts).

import { needing } from "../_requires.ts";
import { firstUsesUnderEmfile } from "./_first_use_emfile.ts";

const needsProc = needing("proc");

Deno.test(needsProc(
  "first calls under EMFILE answer which module could not load; the same calls work afterwards",
  () => firstUsesUnderEmfile(),
));
