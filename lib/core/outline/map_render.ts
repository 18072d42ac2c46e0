// One file's entry in a repository map (the outline of a directory): its top-level declarations
// (module-level variables left out) on one line, each container with its members' names, within a byte budget; what does not fit
// is counted (`+3 more`, `{start, stop, +12}`). Pure.

import { plural } from "../plural.ts";
import type { Declaration } from "./declaration.ts";

interface MapFile {
  /** The file as shown (quoted when it must be). */
  path: string;
  lines: number;
  decls: readonly Declaration[];
  /** Some of its lines do not parse. */
  unparsed: boolean;
}

const range = (d: Declaration) => (d.end > d.start ? `${d.start}-${d.end}` : `${d.start}`);

/** `{a, b, +3}`: a container's member names, as many as `room` bytes allow. */
function members(d: Declaration, room: number): string {
  if (d.children.length === 0) return "";
  const names: string[] = [];
  let used = 4;
  for (const c of d.children) {
    if (used + c.name.length + 2 > room) break;
    names.push(c.name);
    used += c.name.length + 2;
  }
  const left = d.children.length - names.length;
  return ` {${[...names, ...(left > 0 ? [`+${left}`] : [])].join(", ")}}`;
}

/** The file's map line: `path (N lines): class A 3-40 {x, y}, function b 42-50, +2 more`. */
export function mapEntry(file: MapFile, budget: number): string {
  const head = `${file.path} (${plural(file.lines, "line")}${
    file.unparsed ? ", some lines do not parse" : ""
  })`;
  // Module-level variables crowd a map out; its readers want the names they can call or extend.
  const decls = file.decls.filter((d) => d.kind !== "variable");
  if (decls.length === 0) return `${head}: no declarations`;
  const items: string[] = [];
  let used = head.length + 2;
  for (const [i, d] of decls.entries()) {
    const base = `${d.kind} ${d.name} ${range(d)}`;
    const reserve = i < decls.length - 1 ? 12 : 0; // room for ", +N more"
    if (used + base.length + 2 + reserve > budget && items.length > 0) {
      items.push(`+${decls.length - i} more`);
      break;
    }
    const item = base + members(d, Math.max(0, budget - used - base.length - reserve));
    items.push(item);
    used += item.length + 2;
  }
  return `${head}: ${items.join(", ")}`;
}
