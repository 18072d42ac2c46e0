// What every rung of the str_replace ladder gets (the request in LF space) and returns when it
// matched (the edits to apply, with notes for the result). No match: undefined; ambiguous: throws.

import type { TextDoc } from "../../text/text_file.ts";
import type { CharEdit, LfText } from "./lf_text.ts";

/** Which rung of the str_replace ladder matched: exact text first, then the recoveries. */
export type MatchTier = "exact" | "escaped" | "fuzzy" | "escaped_fuzzy";

export interface RungInput {
  doc: TextDoc;
  lf: LfText;
  /** The file as named in messages. */
  path: string;
  /** old_text and new_text with CRLF read as LF. */
  oldText: string;
  newText: string;
  replaceAll: boolean;
}

export interface RungMatch {
  tier: MatchTier;
  edits: CharEdit[];
  /** What the rung did beyond an exact match, for the result text. */
  notes: string[];
}
