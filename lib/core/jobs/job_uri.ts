// The one home of the job URI scheme: `anchorfs://jobs/ID` names a job (its MCP resource) and
// its log as a read-only file. Every other file formats and reads job URIs through these.

const ID_PATTERN = /^[0-9]+-[0-9]+$/;

/** Job ids are `<server pid>-<n>`. */
export function isJobId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** Every job URI starts with this. */
const JOB_URI_PREFIX = "anchorfs://jobs/";

/** The MCP resource template of a job. */
export const JOB_URI_TEMPLATE = `${JOB_URI_PREFIX}{id}`;

/** A job URI, as written (the scheme's case ignored, as URL schemes are). */
const JOB_URI = /^anchorfs:\/\/jobs\/([^/]+)(\/(?:log|output)?)?$/i;

/** `anchorfs://jobs/ID`: the URI of job `id`. */
export function formatJobUri(id: string): string {
  return `${JOB_URI_PREFIX}${id}`;
}

/**
 * The job a URI names: `anchorfs://jobs/ID`, with a trailing `/`, `/log` or `/output`
 * tolerated (what a model writes for the job's log). `id` is as written, not checked to have the
 * shape of a job id; undefined when `uri` is no job URI.
 */
export function parseJobUri(uri: string): { id: string } | undefined {
  const m = JOB_URI.exec(uri);
  return m ? { id: m[1]! } : undefined;
}

/** Whether `text` is written with the anchorfs:// scheme at all (a job URI or a wrong one). */
export function hasAnchorfsScheme(text: string): boolean {
  return /^anchorfs:\/\//i.test(text);
}

/**
 * The resource URI a client sent, read as a job id: whatever follows the prefix (exact case),
 * undefined for any other URI. For resource reads and subscriptions, which name exact URIs.
 */
export function jobIdOfResource(uri: string): string | undefined {
  return uri.startsWith(JOB_URI_PREFIX) ? uri.slice(JOB_URI_PREFIX.length) : undefined;
}
