// edit_in_place and printing reads by stream editors: sed (-i, -n 'Np'), awk (gawk -i inplace,
// output into a file) and perl -i, with a text_editor str_replace call for a literal s/old/new/.

import { formatCall, NOTHING_TO_READ_REASON, type PolicyRule } from "./policy_messages.ts";
import {
  type Invocation,
  onlyShellFiles,
  readsProjectFiles,
  type Refusal,
  refuse,
} from "./invocation.ts";
import { stdoutToFile } from "./redirects.ts";
import { scanArgs } from "./scan_args.ts";
import { isLiteralPath, toolPath, viewCalls } from "./suggest.ts";

export function judgeSed(inv: Invocation): Refusal | undefined {
  const { opts, operands } = scanArgs(inv.args, {
    short: "efl",
    long: ["expression", "file", "line-length"],
    optionalValue: ["-i", "--in-place"],
  });
  const inPlace = opts.some((o) => o.name === "-i" || o.name === "--in-place");
  const scripts = opts.filter((o) => o.name === "-e" || o.name === "--expression").map((o) =>
    o.value ?? ""
  );
  const hasScriptOption = scripts.length > 0 ||
    opts.some((o) => o.name === "-f" || o.name === "--file");
  if (!hasScriptOption && operands[0]) scripts.push(operands[0].value);
  const files = hasScriptOption ? operands : operands.slice(1);
  const quiet = opts.some((o) => ["-n", "--quiet", "--silent"].includes(o.name));
  if (inPlace) {
    // A file anchorfs cannot edit itself (over the size limit) is the shell's to edit.
    if (onlyShellFiles(inv, files.map((w) => w.value))) return undefined;
    return refuse(inv, "edit_in_place", {
      calls: substitutionCalls(inv, scripts, files.map((w) => w.value)),
    });
  }
  const rule: PolicyRule = quiet ? "read_file" : "edit_in_place";
  const reading = readsProjectFiles(inv, files, rule);
  if (!reading) return undefined;
  if (quiet) {
    const range = sedPrintRange(scripts);
    return refuse(inv, "read_file", { calls: viewCalls(inv, reading.files, range) });
  }
  return refuse(inv, "edit_in_place", { calls: substitutionCalls(inv, scripts, reading.files) });
}

/** `sed -n '10,20p'` → start/end. */
function sedPrintRange(scripts: string[]): Record<string, number> {
  if (scripts.length !== 1) return {};
  const m = /^\s*(\d+)\s*(?:,\s*(\d+|\$)\s*)?p\s*$/.exec(scripts[0]!);
  if (!m) return /^\s*\$\s*p\s*$/.test(scripts[0]!) ? { start: -1 } : {};
  const start = Number(m[1]);
  if (m[2] === undefined) return { start, end: start };
  if (m[2] === "$") return { start };
  return { start, end: Number(m[2]) };
}

/** `s/old/new/` with literal text on both sides → text_editor str_replace on each file. */
function substitutionCalls(inv: Invocation, scripts: string[], files: string[]): string[] {
  if (scripts.length !== 1 || files.length === 0) return [];
  const m = /^s(.)(.*)$/s.exec(scripts[0]!.trim());
  if (!m) return [];
  const delim = m[1]!;
  const parts = splitSedParts(m[2]!, delim);
  // Only s/literal/literal/ with no flag or `g` maps exactly (I, N-th match, regexes do not).
  if (!parts || parts.length !== 3 || !/^g?$/.test(parts[2]!)) return [];
  const [oldText, newText, flags] = parts as [string, string, string];
  if (/[\\^$.*[\]+?(){}|]/.test(oldText) || /[\\&$]/.test(newText) || oldText === "") return [];
  return files.filter(isLiteralPath).slice(0, 3).map((f) =>
    formatCall("text_editor", {
      command: "str_replace",
      path: toolPath(inv, f),
      old_text: oldText,
      new_text: newText,
      ...(flags === "g" ? { replace_all: true } : {}),
    })
  );
}

function splitSedParts(body: string, delim: string): string[] | undefined {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && body[i + 1] === delim) {
      current += delim;
      i++;
    } else if (c === "\\" && i + 1 < body.length) {
      current += c + body[i + 1];
      i++;
    } else if (c === delim) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.length === 3 ? parts : undefined;
}

export function judgeAwk(inv: Invocation): Refusal | undefined {
  const { opts, operands } = scanArgs(inv.args, {
    short: "fvFiEl",
    long: ["file", "assign", "field-separator", "include", "exec", "load"],
  });
  const inPlace = opts.some((o) =>
    (o.name === "-i" || o.name === "--include") && /^inplace$/.test(o.value ?? "")
  );
  const hasProgramFile = opts.some((o) => ["-f", "--file", "-E", "--exec"].includes(o.name));
  const program = hasProgramFile ? undefined : operands[0]?.value;
  // Operands like `var=value` are assignments, not files.
  const files = (hasProgramFile ? operands : operands.slice(1)).filter((w) =>
    !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)
  );
  if (!inPlace && files.length === 0 && program !== undefined && /^\s*BEGIN\s*\{/.test(program)) {
    // `awk 'BEGIN { print 6*7 }'`: computes, reads nothing (unless a main rule follows).
    if (!/\}\s*[^\s}]/.test(program.replace(/^\s*BEGIN\s*\{[^]*?\}\s*$/, ""))) return undefined;
  }
  if (inPlace && onlyShellFiles(inv, files.map((w) => w.value))) return undefined;
  // gawk -i inplace, or output written to a file (`awk … f > f.tmp && mv f.tmp f`): an edit.
  // Otherwise awk on files extracts and prints: a read, and view is the tool for it.
  const rule: PolicyRule = inPlace || stdoutToFile(inv.cmd) ? "edit_in_place" : "read_file";
  const reading = inPlace
    ? { files: files.map((w) => w.value), nothingToRead: false }
    : readsProjectFiles(inv, files, rule);
  if (!reading) return undefined;
  if (reading.nothingToRead) return refuse(inv, rule, { reason: NOTHING_TO_READ_REASON });
  return refuse(inv, rule, { calls: rule === "read_file" ? viewCalls(inv, reading.files) : [] });
}

export function judgePerl(inv: Invocation): Refusal | undefined {
  let inPlace = false;
  const scripts: string[] = [];
  let i = 0;
  for (; i < inv.args.length; i++) {
    const v = inv.args[i]!.value;
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    // Perl switch clusters: -i takes the rest as a backup suffix (`-pi.bak`), -e/-E the next
    // word as code, and -I/-M/-m/-F/-0/-l/-C/-d/-D/-x the rest of the cluster.
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      if (c === "i") {
        inPlace = true;
        break;
      }
      if (c === "e" || c === "E") {
        const code = v.slice(j + 1) || inv.args[++i]?.value;
        if (code !== undefined) scripts.push(code);
        break;
      }
      if ("IMmF0lCdDx".includes(c)) break;
    }
  }
  if (!inPlace) return undefined;
  const files = inv.args.slice(scripts.length > 0 ? i : i + 1).map((w) => w.value);
  if (onlyShellFiles(inv, files)) return undefined;
  return refuse(inv, "edit_in_place", { calls: substitutionCalls(inv, scripts, files) });
}
