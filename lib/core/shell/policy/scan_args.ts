// Option scanning for the programs the policy knows: splits argv into options (with values) and
// operands from a per-program spec. Knows option syntax only, not what any option means.

import type { Word } from "../parse/mod.ts";

export interface Opt {
  /** `-x` or `--long`; numeric options keep their digits (`-20`). */
  name: string;
  value?: string;
}

export interface ScanSpec {
  /** Short options that take a value, attached (`-n5`) or as the next word (`-n 5`). */
  short?: string;
  /** Long options (without `--`) that take a value as the next word when not given with `=`. */
  long?: string[];
  /** Options whose value is optional and only ever attached (`-i.bak`, `--in-place=.bak`). */
  optionalValue?: string[];
  /** Stop at the first operand (wrappers, ssh): the rest belongs to the wrapped command. */
  stopAtOperand?: boolean;
  /** `-20` is an option (head, tail, nice). */
  numeric?: boolean;
}

export function scanArgs(
  args: Word[],
  spec: ScanSpec,
): { opts: Opt[]; operands: Word[]; terminated: boolean } {
  const opts: Opt[] = [];
  const operands: Word[] = [];
  const short = spec.short ?? "";
  const long = spec.long ?? [];
  const optional = spec.optionalValue ?? [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      return { opts, operands, terminated: true };
    }
    if (!v.startsWith("-") || v === "-") {
      if (spec.stopAtOperand) {
        operands.push(...args.slice(i));
        return { opts, operands, terminated: false };
      }
      operands.push(w);
      continue;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq < 0 ? v : v.slice(0, eq);
      if (eq >= 0) opts.push({ name, value: v.slice(eq + 1) });
      else if (long.includes(name.slice(2)) && !optional.includes(name) && i + 1 < args.length) {
        opts.push({ name, value: args[++i]!.value });
      } else opts.push({ name });
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(v)) {
      opts.push({ name: v });
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      const name = `-${c}`;
      if (optional.includes(name)) {
        const value = v.slice(j + 1);
        opts.push(value ? { name, value } : { name });
        break;
      }
      if (short.includes(c)) {
        const attached = v.slice(j + 1);
        if (attached) opts.push({ name, value: attached });
        else if (i + 1 < args.length) opts.push({ name, value: args[++i]!.value });
        else opts.push({ name });
        break;
      }
      opts.push({ name });
    }
  }
  return { opts, operands, terminated: false };
}
