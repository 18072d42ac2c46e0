// The outline worker's entry (started by tree_sitter_parser.ts, bundled as
// anchorfs_outline_worker.js): parses one text at a time and answers with plain data. The
// runtime and the grammars live in this worker's memory, returned when the main thread ends it.

/// <reference lib="deno.worker" />

import { LANGUAGES } from "../../core/outline/languages.ts";
import { parseOutline } from "./tree_sitter_runtime.ts";
import type { OutlineAnswer, OutlineAsk } from "./outline_protocol.ts";

self.onmessage = async (e: MessageEvent<OutlineAsk>) => {
  const { id, text, language, stop } = e.data;
  let answer: OutlineAnswer;
  try {
    const known = LANGUAGES[language];
    if (!known) throw new Error(`no language ${JSON.stringify(language)}`);
    const outline = await parseOutline(text, known, () => Atomics.load(stop, 0) !== 0);
    answer = { id, outline };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(answer);
};
