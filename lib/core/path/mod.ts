// lib/core/path: path rules per machine (POSIX, macOS, Windows), POSIX path arithmetic, the quoting of file names in output, confinement to allowed
// directories, and the names of atomic-write temporaries. Pure.
// This file is the folder's public surface: what code outside lib/core/path/ uses.

export {
  type AllowedDir,
  allowingDir,
  describeAllowed,
  fileUriPath,
  intersectAllowed,
  isPathInside,
} from "./confinement.ts";
export {
  decodeNameBytes,
  encodeNameBytes,
  hasRawBytes,
  needsQuoting,
  quotePath,
  quotePathAlways,
  splitPathList,
  unquotePath,
} from "./path_quote.ts";
export {
  baseName,
  isAbsolutePath,
  joinPath,
  parentPath,
  relativeTo,
  stripTrailing,
} from "./path_text.ts";
export {
  MACOS_PATHS,
  type PathRules,
  pathRulesFor,
  POSIX_PATHS,
  posixPathsOn,
  WINDOWS_PATHS,
} from "./path_rules.ts";
export {
  isWriteTempName,
  TEMP_MAX_AGE_MS,
  writeLockName,
  writeTempName,
  writeTempPid,
} from "./write_temp_name.ts";
export { caseSwapped, CaseVolumes } from "./case_volumes.ts";
