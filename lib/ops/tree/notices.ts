// What a walk skipped and why: the counts and the first few samples (ignored, hidden, symlinks,
// directories not entered, unreadable ones) that empty-result and listing notices are built from.
// Plain data and phrases: no I/O.

import type { IgnoreReason } from "../../core/search/ignore_rules.ts";
import type { StopReason } from "../budget.ts";

export interface WalkStats {
  /** Files that passed ignore and hidden rules (before the pattern filter). */
  filesSeen: number;
  /** Files dropped by the pattern filter. */
  filesFiltered: number;
  /** Entries skipped by .gitignore / .git/info/exclude. */
  ignored: number;
  /** Hidden entries skipped (include_hidden false). */
  hidden: number;
  /** Of those, `.gitignore` files (their rules apply; their text is rarely what is sought). */
  hiddenIgnoreFiles: number;
  /** The first few entries skipped, and why: an empty result names them and the call to use. */
  ignoredSamples: SkippedEntry[];
  hiddenSamples: SkippedEntry[];
  /**
   * Directories not entered because an ignore rule or the hidden rule skipped them (with the
   * rule; `hidden` set for a dot directory), the first SKIPPED_DIRS: a search that found nothing
   * names those that can hold the text (ignored_probe.ts).
   */
  skippedDirs: SkippedEntry[];
  /** Symbolic links skipped: never followed (as in ripgrep), so an all-links folder lists nothing. */
  symlinks: number;
  /** The first few of them, for the empty-result text (it names the call that views one). */
  symlinkSamples: SkippedEntry[];
  /** Directories not entered because the pattern cannot match anything below them. */
  dirsPassedOver: number;
  /** Directories that could not be read (permissions, races); the walk goes on. */
  unreadable: string[];
  /** Why each of them could not be read (unreadableWhy), index for index. */
  unreadableWhy: string[];
  /** Set when the budget stopped the walk early (cancelled, or past the deadline). */
  stopped?: StopReason;
}

/** An entry the walk skipped: absolute path, and for an ignored one the rule that did it. */
export interface SkippedEntry {
  path: string;
  isDir: boolean;
  reason?: IgnoreReason;
  /** A dot entry skipped as hidden (it may be ignored too: then `reason` is set). */
  hidden?: boolean;
}

/** Skipped entries kept per kind for the empty-result text. */
export const SKIPPED_SAMPLES = 3;
/** Skipped directories kept for a search that found nothing to look into. */
export const SKIPPED_DIRS = 24;

export function newWalkStats(): WalkStats {
  return {
    filesSeen: 0,
    filesFiltered: 0,
    ignored: 0,
    hidden: 0,
    hiddenIgnoreFiles: 0,
    ignoredSamples: [],
    hiddenSamples: [],
    skippedDirs: [],
    symlinks: 0,
    symlinkSamples: [],
    dirsPassedOver: 0,
    unreadable: [],
    unreadableWhy: [],
  };
}

/**
 * Why a directory could not be listed, as a phrase for the listing's notice: from the backend's
 * error (an AnchorError's code, or the system's errno name).
 */
export function unreadableWhy(error: unknown): string {
  const e = error as { code?: string; message?: string } | null;
  switch (e?.code) {
    case "PERMISSION_DENIED":
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "INVALID_PATH":
    case "ENAMETOOLONG":
      return "its path is longer than the system allows, 4,096 bytes on Linux";
    case "TOO_MANY_OPEN_FILES":
    case "EMFILE":
    case "ENFILE":
      return "the server has no file descriptor left (EMFILE: its `ulimit -n`); retry in a " +
        "moment, or ask the user to raise the limit";
    case "NOT_FOUND":
    case "ENOENT":
      return "it was removed during the walk";
    default:
      return (e?.message ?? String(error)).slice(0, 120);
  }
}
