// A long-lived `sh` loop on the remote host, started once per connection through exec, that
// answers bulk requests on one channel: "L" lists a tree with GNU find, "T" streams files with
// GNU tar. Pays the remote login-shell start-up once instead of per request. Requests are
// serialised; each response ends with a trailer so the next one starts on a clean stream.

import type { ClientChannel } from "./ssh2_types.d.ts";
import { concatBytes } from "./concat_bytes.ts";
import { type TarEntry, TarReader } from "./tar_reader.ts";

// Fixed text: paths arrive on stdin (length-prefixed), never through a remote shell's parser.
// `head -c N` (GNU) reads exactly N bytes from the pipe, so the loop stays in step.
const HELPER_SCRIPT = [
  "if tar --version 2>/dev/null | grep -q 'GNU tar' && find --version 2>/dev/null | grep -q GNU" +
  " && head --version 2>/dev/null | grep -q GNU && xargs --version 2>/dev/null | grep -q GNU;" +
  " then echo 'anchorfs-helper-v2 ok'; else echo 'anchorfs-helper-v2 no'; exit 0; fi",
  "while IFS= read -r op; do",
  '  case "$op" in',
  // "T": tar the listed files. With a bound, find first keeps only regular files under that
  // many bytes (-H: a listed symlink counts as its target, as tar -h reads it), so a 3 GB file
  // or a FIFO never enters the stream; the caller reads or refuses what did not come.
  "  T) IFS= read -r below; IFS= read -r n;",
  '     if [ "$below" = "-" ]; then head -c "$n"; else head -c "$n" |',
  '       xargs -0 -r sh -c \'find -H "$@" -maxdepth 0 -type f -size "-${0}c" -print0\' "$below" 2>/dev/null; fi |',
  "     tar -c -f - -b 1 -P -h --hard-dereference --no-recursion --null -T - 2>/dev/null;",
  "     printf '\\nanchorfs-done %s\\n' \"$?\";;",
  "  L) IFS= read -r root; IFS= read -r depth; IFS= read -r hidden;",
  '     set -- -mindepth 1; [ "$depth" = "-" ] || set -- "$@" -maxdepth "$depth";',
  // "h": hidden directories are printed (so they count as skipped) but not entered.
  '     [ "$hidden" = "h" ] && set -- "$@" "(" -type d -name ".*" -printf \'%y %s %P\\000\' -prune ")" -o;',
  '     find -H "$root" "$@" -printf \'%y %s %P\\000\' 2>/dev/null;',
  "     printf '\\000anchorfs-done %s\\n' \"$?\";;",
  "  *) exit 1;;",
  "  esac",
  "done",
].join("\n");

export function helperCommand(): string {
  return `sh -c '${HELPER_SCRIPT.replace(/'/g, `'\\''`)}'`;
}

type Consumer = (chunk: Uint8Array) => boolean;

/** Silence after which a bulk response is given up (the helper channel is then restarted). */
const SILENCE_MS = 120_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Parses the `anchorfs-done N\n` trailer; returns the status once the line is complete. */
function trailerStatus(text: string): number | null {
  const m = /anchorfs-done (\d+)\n$/.exec(text);
  return m ? Number(m[1]) : null;
}

export class RemoteHelper {
  private consumer: Consumer | null = null;
  private failWith: ((e: Error) => void) | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private dead: Error | null = null;
  /** The silence timer of the request in progress (stopped while the caller has paused it). */
  private silence: { arm: () => void; disarm: () => void } | null = null;

  private constructor(private channel: ClientChannel) {
    channel.on("data", (chunk: Uint8Array) => {
      if (this.consumer && this.consumer(chunk)) {
        this.consumer = null;
        this.failWith = null;
      }
    });
    channel.stderr.on("data", () => {});
    const die = () => {
      this.dead ??= new Error("the remote helper channel closed");
      this.failWith?.(this.dead);
    };
    channel.on("close", die);
    channel.on("error", die);
  }

  /** Starts the loop on `channel` (an exec of helperCommand()); null when unusable there. */
  static async start(channel: ClientChannel, timeoutMs: number): Promise<RemoteHelper | null> {
    const helper = new RemoteHelper(channel);
    let head = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ok = await new Promise<boolean>((resolve) => {
      // An account forced to internal-sftp runs sftp-server instead and never answers.
      timer = setTimeout(() => resolve(false), timeoutMs);
      helper.failWith = () => resolve(false);
      helper.consumer = (chunk) => {
        head += decoder.decode(chunk);
        // rc files may print a banner first; our line is the one that counts.
        const at = head.indexOf("anchorfs-helper-v2 ");
        if (at === -1 || !head.slice(at).includes("\n")) return false;
        resolve(head.startsWith("anchorfs-helper-v2 ok\n", at));
        return true;
      };
    });
    clearTimeout(timer);
    if (!ok) {
      helper.consumer = null;
      helper.failWith = null;
      channel.end();
      return null;
    }
    return helper;
  }

  get alive(): boolean {
    return this.dead === null;
  }

  private request<T>(
    payload: Uint8Array,
    consume: (resolve: (v: T) => void) => Consumer,
  ): Promise<T> {
    const run = () =>
      new Promise<T>((resolve, reject) => {
        if (this.dead) return reject(this.dead);
        // A response that stops flowing (a hung mount, a confused stream) must not block every
        // later bulk request: after a long silence the helper is dropped and restarted.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const arm = () => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            this.dead = new Error(`the remote helper sent nothing for ${SILENCE_MS / 1000} s`);
            this.close();
            reject(this.dead);
          }, SILENCE_MS);
        };
        this.silence = { arm, disarm: () => clearTimeout(timer) };
        this.failWith = (e) => {
          clearTimeout(timer);
          this.silence = null;
          reject(e);
        };
        const consumer = consume((v) => {
          clearTimeout(timer);
          this.silence = null;
          resolve(v);
        });
        this.consumer = (chunk) => {
          arm();
          return consumer(chunk);
        };
        arm();
        this.channel.write(payload);
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Lists `root` (find -printf records, NUL-separated) and the exit status of find. */
  list(
    root: string,
    maxDepth: number | undefined,
    skipHiddenDirContents = false,
  ): Promise<{ records: string; status: number }> {
    const depth = maxDepth === undefined ? "-" : maxDepth;
    const hidden = skipHiddenDirContents ? "h" : "-";
    const payload = encoder.encode(`L\n${root}\n${depth}\n${hidden}\n`);
    return this.request(payload, (resolve) => {
      const chunks: Uint8Array[] = [];
      let tail = "";
      return (chunk) => {
        chunks.push(chunk);
        tail = (tail + decoder.decode(chunk)).slice(-64);
        const status = trailerStatus(tail);
        if (status === null || !tail.includes("\0anchorfs-done ")) return false;
        const text = decoder.decode(concatBytes(chunks));
        const end = text.lastIndexOf("\0anchorfs-done ");
        resolve({ records: text.slice(0, end), status });
        return true;
      };
    });
  }

  /**
   * Streams the files through tar; `onEntry` sees each as it arrives. Resolves with tar's status.
   * With `maxBytes`, only regular files of at most that size are sent (paths must be absolute:
   * find reads them as its starting points). The caller may pause() the stream while it catches
   * up, then resume() it.
   */
  readFiles(
    paths: readonly string[],
    onEntry: (entry: TarEntry) => void,
    maxBytes?: number,
  ): Promise<number> {
    const list = encoder.encode(paths.join("\0") + "\0");
    const below = maxBytes === undefined ? "-" : String(Math.floor(maxBytes) + 1);
    const head = encoder.encode(`T\n${below}\n${list.length}\n`);
    const payload = concatBytes([head, list]);
    return this.request(payload, (resolve) => {
      const reader = new TarReader(onEntry, maxBytes);
      let rest = "";
      return (chunk) => {
        let at = 0;
        if (!reader.ended) at = reader.push(chunk);
        if (!reader.ended) return false;
        rest += decoder.decode(chunk.subarray(at));
        const status = trailerStatus(rest);
        if (status === null) return false;
        resolve(status);
        return true;
      };
    });
  }

  /** Stops reading the response (ssh flow control then stops the sender); no silence timeout. */
  pause(): void {
    this.silence?.disarm();
    this.channel.pause();
  }

  resume(): void {
    this.channel.resume();
    this.silence?.arm();
  }

  close(): void {
    try {
      this.channel.end();
    } catch { /* already closed */ }
  }
}
