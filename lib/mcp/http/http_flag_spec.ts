// The parseArgs table of the `anchorfs mcp --http` flags, alone: the early start reads it (through
// flag_table.ts) before anything else loads, so it imports nothing. Parsed in http_options.ts and
// connection_options.ts.

export const CONNECTION_FLAG_SPEC = {
  "header-timeout": { type: "string" },
  "body-timeout": { type: "string" },
  "max-connections": { type: "string" },
} as const;

export const HTTP_FLAG_SPEC = {
  http: { type: "string" },
  "http-public": { type: "boolean" },
  "token-file": { type: "string" },
  "allow-origin": { type: "string", multiple: true },
  "idle-timeout": { type: "string" },
  "unstreamed-timeout": { type: "string" },
  "max-sessions": { type: "string" },
  "max-body-bytes": { type: "string" },
  ...CONNECTION_FLAG_SPEC,
} as const;
