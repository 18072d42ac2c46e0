// The rule table: which program names the policy refuses and why (read_file, search_text,
// list_files, edit_in_place, bare_sleep, never_ends). Readers, pagers and endless programs are
// judged here; search, listing and editing programs have their own files.

import { EDITOR_REASON, NEVER_ENDS_REASONS, NOTHING_TO_READ_REASON } from "./policy_messages.ts";
import { judgeAwk, judgePerl, judgeSed } from "./edit.ts";
import {
  type Invocation,
  neverEnds,
  readsProjectFiles,
  type Refusal,
  refuse,
} from "./invocation.ts";
import { judgeFind, judgeList } from "./list.ts";
import { stdinIsData, stdoutToFile } from "./redirects.ts";
import { type Opt, scanArgs, type ScanSpec } from "./scan_args.ts";
import { judgeSearch } from "./search.ts";
import { viewCalls } from "./suggest.ts";

const READERS = new Set(["cat", "tac", "nl", "bat", "batcat"]);
const PAGERS = new Set(["less", "more", "most"]);
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep", "ugrep", "ug"]);
const LISTERS = new Set(["ls", "dir", "vdir", "exa", "eza", "lsd", "tree"]);
const FINDERS = new Set(["find", "fd", "fdfind"]);
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
const EDITORS = new Set([
  "vi",
  "vim",
  "nvim",
  "view",
  "nano",
  "pico",
  "emacs",
  "micro",
  "joe",
  "ed",
  "ex",
]);
const MONITORS = new Set(["htop", "btop", "atop", "iotop", "nmon", "glances", "iftop", "nload"]);

export function judgeProgram(inv: Invocation): Refusal | undefined {
  const name = inv.name;
  if (READERS.has(name)) return judgeReader(inv);
  if (name === "head" || name === "tail") return judgeHeadTail(inv);
  if (PAGERS.has(name)) return judgePager(inv);
  if (SEARCHERS.has(name)) return judgeSearch(inv);
  if (LISTERS.has(name)) return judgeList(inv);
  if (FINDERS.has(name)) return judgeFind(inv);
  if (name === "sed") return judgeSed(inv);
  if (AWKS.has(name)) return judgeAwk(inv);
  if (name === "perl") return judgePerl(inv);
  if (EDITORS.has(name)) return refuse(inv, "edit_in_place", { reason: EDITOR_REASON });
  if (name === "sleep") return judgeSleep(inv);
  if (name === "watch") return neverEnds(inv, "watch");
  if (MONITORS.has(name)) return neverEnds(inv, "monitor");
  if (name === "top") return judgeTop(inv);
  if (name === "journalctl") return judgeFollower(inv, "uptSUoDMIgFn", ["follow"], "f");
  if (name === "dmesg") return judgeFollower(inv, "FfnlsC", ["follow", "follow-new"], "wW");
  if (name === "ping" || name === "ping6") return judgePing(inv);
  if (name === "yes" && inv.cmd.pipelineLength === 1 && !stdoutToFile(inv.cmd)) {
    return neverEnds(inv, "yes");
  }
  return undefined;
}

function judgeReader(inv: Invocation): Refusal | undefined {
  const { operands } = scanArgs(inv.args, READER_OPTIONS[inv.name] ?? {});
  const reading = readsProjectFiles(inv, operands, "read_file");
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, "read_file", { reason: NOTHING_TO_READ_REASON });
  return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files) });
}

const READER_OPTIONS: Record<string, ScanSpec> = {
  nl: { short: "bdfhilnsvw" },
  bat: {
    short: "lHrmpd",
    long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging"],
  },
  batcat: {
    short: "lHrmpd",
    long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging"],
  },
};

function judgeHeadTail(inv: Invocation): Refusal | undefined {
  const isTail = inv.name === "tail";
  const { opts, operands } = scanArgs(inv.args, {
    short: isTail ? "ncs" : "nc",
    long: ["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"],
    numeric: true,
    optionalValue: ["--follow"],
  });
  if (isTail) {
    const follows = opts.some((o) =>
      o.name === "-f" || o.name === "-F" || o.name === "--follow" || o.name === "--retry"
    );
    if (follows) {
      if (inv.bounded) return undefined;
      // The one-off read of what is there now is the nearest finite call.
      const count = headTailRange(true, opts).start ?? -10;
      return refuse(inv, "never_ends", {
        reason: NEVER_ENDS_REASONS.follow,
        calls: viewCalls(inv, operands.map((w) => w.value), { start: count }),
      });
    }
  }
  const reading = readsProjectFiles(inv, operands, "read_file");
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, "read_file", { reason: NOTHING_TO_READ_REASON });
  const range = headTailRange(isTail, opts);
  return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files, range) });
}

function headTailRange(isTail: boolean, opts: Opt[]): Record<string, number> {
  if (opts.some((o) => o.name === "-c" || o.name === "--bytes")) return {};
  let count = "10";
  for (const o of opts) {
    if ((o.name === "-n" || o.name === "--lines") && o.value !== undefined) count = o.value;
    else if (/^-\d+$/.test(o.name)) count = o.name.slice(1);
  }
  if (isTail && count.startsWith("+") && /^\+\d+$/.test(count)) return { start: Number(count) };
  if (!/^\d+$/.test(count)) return {};
  const n = Number(count);
  if (n === 0) return {};
  return isTail ? { start: -n } : { start: 1, end: n };
}

function judgePager(inv: Invocation): Refusal | undefined {
  // less's options are many; operands are the words that are not options.
  const files = inv.args.filter((w) => !w.value.startsWith("-") && !w.value.startsWith("+"));
  if (inv.cmd.fed || files.length === 0 && !inv.implicitFiles) {
    return stdinIsData(inv.cmd) && !inv.cmd.fed ? undefined : neverEnds(inv, "pager");
  }
  const reading = readsProjectFiles(inv, files, "read_file");
  if (!reading) return undefined;
  return refuse(inv, "read_file", {
    reason: NEVER_ENDS_REASONS.pager,
    calls: viewCalls(inv, reading.files),
  });
}

function judgeSleep(inv: Invocation): Refusal | undefined {
  const cmd = inv.cmd;
  // Inside a loop it paces a poll; in the background it is a timer: neither burns the call.
  if (cmd.inLoop || cmd.background) return undefined;
  return refuse(inv, "bare_sleep");
}

function judgeTop(inv: Invocation): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: "dnpuUoOsw", long: [] });
  const batch = opts.some((o) => o.name === "-b");
  const iterations = opts.some((o) => o.name === "-n");
  return batch && iterations ? undefined : neverEnds(inv, "top");
}

function judgeFollower(
  inv: Invocation,
  valueShort: string,
  followLong: string[],
  followShort: string,
): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: valueShort });
  const follows = opts.some((o) =>
    followShort.includes(o.name.slice(1)) && o.name.length === 2 ||
    followLong.includes(o.name.replace(/^--/, ""))
  );
  if (!follows || inv.bounded) return undefined;
  return neverEnds(inv, "follow");
}

function judgePing(inv: Invocation): Refusal | undefined {
  const { opts } = scanArgs(inv.args, { short: "cwWisItlpQSMFTmIB" });
  const bounded = opts.some((o) => o.name === "-c" || o.name === "-w");
  return bounded || inv.bounded ? undefined : neverEnds(inv, "ping");
}
