// The values of the flags of `anchorfs mcp` (parsed by mcp_args.ts from the flag table), each
// value checked (INVALID_FLAG naming the flag). Used by the command and, before it answers
// `initialize` early, by early_start.ts: a flag that would fail here must fail before any reply.

import { AnchorError } from "../core/errors.ts";
import { SHELL_KINDS, type ShellKind } from "../core/platform/platform.ts";
import { parseByteCount } from "../core/byte_count.ts";
import { type JobLimits, parseJobPids } from "../core/jobs/containment.ts";
import { DEFAULT_DEADLINE_SECONDS } from "./tool_env.ts";
import { parseMaxMessageBytes } from "./stdio/stdio_wire.ts";
import { DEFAULT_PASSING_LINES, DEFAULT_TAIL_BYTES } from "../ops/jobs/output_defaults.ts";
import { parseHttpFlags } from "./http/http_options.ts";
import type { McpFlagValues } from "./mcp_args.ts";

function parsePositiveSeconds(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `${flag} takes a positive number of seconds, got ${JSON.stringify(raw)}.`,
      hint: `e.g. ${flag} 10 (fractions like 0.5 are allowed).`,
    });
  }
  return value;
}

function parsePassingLines(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PASSING_LINES;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 100_000) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--passing-tail-lines takes a whole number of lines from 0 to 100000, got ${
        JSON.stringify(raw)
      }.`,
      hint: `e.g. --passing-tail-lines 30 (the default is ${DEFAULT_PASSING_LINES}; 0 shows ` +
        "the whole --tail-bytes tail).",
    });
  }
  return value;
}

function parseTailBytes(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TAIL_BYTES;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 256 || value > 1024 * 1024) {
    throw new AnchorError({
      code: "INVALID_FLAG",
      message: `--tail-bytes takes a whole number of bytes from 256 to 1048576, got ${
        JSON.stringify(raw)
      }.`,
      hint: `e.g. --tail-bytes 8192 (the default is ${DEFAULT_TAIL_BYTES}).`,
    });
  }
  return value;
}

/** --job-memory and --job-pids as service options (INVALID_FLAG for a malformed value). */
function parseJobLimits(memory: string | undefined, pids: string | undefined) {
  const jobLimits: JobLimits = {};
  if (memory !== undefined) jobLimits.memoryBytes = parseByteCount("--job-memory", memory);
  if (pids !== undefined) {
    const value = parseJobPids(pids);
    if (typeof value === "string") {
      throw new AnchorError({
        code: "INVALID_FLAG",
        message: `${value}.`,
        hint: "e.g. --job-pids 512 (a fork bomb in a job then stops at 512 processes).",
      });
    }
    jobLimits.pids = value;
  }
  return Object.keys(jobLimits).length > 0 ? { jobLimits } : {};
}

function parseShell(raw: string | undefined): ShellKind | undefined {
  if (raw === undefined) return undefined;
  const kind = SHELL_KINDS.find((k) => k === raw.toLowerCase().replace(/\.exe$/, ""));
  if (kind) return kind;
  throw new AnchorError({
    code: "INVALID_FLAG",
    message: `--shell takes one of ${SHELL_KINDS.join(", ")}, got ${JSON.stringify(raw)}.`,
    hint: "e.g. --shell pwsh (PowerShell 7) or --shell bash (Git Bash, WSL) on Windows.",
  });
}

/**
 * The values of the serving flags, checked in the order they have always been: each bad one
 * throws INVALID_FLAG naming it.
 */
export function parseServeFlags(values: McpFlagValues) {
  const foregroundWindowSeconds = parsePositiveSeconds(
    "--foreground-window",
    values["foreground-window"],
    10,
  );
  const sshTimeoutSeconds = parsePositiveSeconds("--ssh-timeout", values["ssh-timeout"], 30);
  const maxMessageBytes = parseMaxMessageBytes(values["max-message-bytes"]);
  const deadlineSeconds = parsePositiveSeconds(
    "--deadline",
    values.deadline,
    DEFAULT_DEADLINE_SECONDS,
  );
  const shellKind = parseShell(values.shell);
  const tailBytes = parseTailBytes(values["tail-bytes"]);
  const passingLines = parsePassingLines(values["passing-tail-lines"]);
  const http = parseHttpFlags(values);
  const serviceOptions = {
    sshTimeoutSeconds,
    ...(shellKind !== undefined && { shell: shellKind }),
    ...(values["state-dir"] !== undefined && { stateDir: values["state-dir"] }),
    ...(values["max-file-bytes"] !== undefined &&
      { maxFileBytes: parseByteCount("--max-file-bytes", values["max-file-bytes"]) }),
    ...parseJobLimits(values["job-memory"], values["job-pids"]),
  };
  return {
    foregroundWindowSeconds,
    maxMessageBytes,
    deadlineSeconds,
    tailBytes,
    passingLines,
    http,
    serviceOptions,
  };
}
