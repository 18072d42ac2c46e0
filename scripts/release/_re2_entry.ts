// The entry scripts/bundle.ts bundles into anchorfs_re2.js: re2js alone, for the search workers,
// which import it by URL (lib/backends/local/re2_module.ts).
export { RE2JS } from "re2js";
