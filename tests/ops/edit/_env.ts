// Shared setup for the edit op tests: a MemoryBackend as the "local" disk, an optional second
// MemoryBackend posing as an ssh:// host, the edit services and one session.

import { MemoryBackend } from "../../../lib/backends/memory/memory_backend.ts";
import type { FileBackend } from "../../../lib/ops/ports/file_backend.ts";
import { Locations } from "../../../lib/ops/location.ts";
import { filesHost } from "../../../lib/ops/ports/host.ts";
import { createSession, fileKey, type Session } from "../../../lib/ops/session.ts";
import type { EditServices } from "../../../lib/ops/edit/commit.ts";
import { FileLocks } from "../../../lib/core/file_locks.ts";
import { UndoStore } from "../../../lib/ops/edit/undo_store.ts";
import { hashLine } from "../../../lib/core/edit/line_id.ts";
import { linePrint } from "../../../lib/core/edit/shown_lines.ts";
import { type Guide, renderGuide, toolCallSyntax } from "../../../lib/core/next_step.ts";

/** A MemoryBackend answering for an ssh:// host (its own id keeps file keys apart). */
function asRemote(mem: MemoryBackend): FileBackend {
  return {
    id: "ssh://box",
    paths: mem.paths,
    stat: (p) => mem.stat(p),
    readFile: (p) => mem.readFile(p),
    readRange: (p, o, l) => mem.readRange(p, o, l),
    writeFileAtomic: (p, d, o) => mem.writeFileAtomic(p, d, o),
    withWriteLock: (p, body) => mem.withWriteLock(p, body),
    mkdirp: (p) => mem.mkdirp(p),
    removeFile: (p) => mem.removeFile(p),
    readDir: (p) => mem.readDir(p),
    realPath: (p) => mem.realPath(p),
    homeDir: () => mem.homeDir(),
    close: () => mem.close(),
  };
}

export interface EditEnv {
  disk: MemoryBackend;
  /** The files of the ssh://box host. */
  remote: MemoryBackend;
  services: EditServices;
  session: Session;
  text(path: string, backend?: FileBackend): Promise<string>;
  bytes(path: string, backend?: FileBackend): Promise<Uint8Array>;
  /** Simulates a full `view` of the file: records every line as shown. */
  view(path: string): Promise<void>;
}

export function editEnv(files: Record<string, string | Uint8Array> = {}): EditEnv {
  const disk = new MemoryBackend(files);
  const remote = new MemoryBackend();
  const remoteBackend = asRemote(remote);
  const locations = new Locations(disk, { open: () => Promise.resolve(filesHost(remoteBackend)) });
  const services: EditServices = { locations, undo: new UndoStore(), editLocks: new FileLocks() };
  const session = createSession(locations.localAt("/"));
  return {
    disk,
    remote,
    services,
    session,
    bytes: (path, backend = disk) => backend.readFile(path),
    text: async (path, backend = disk) => new TextDecoder().decode(await backend.readFile(path)),
    async view(path) {
      const location = await locations.resolve(path, session.cwd);
      const lines = new TextDecoder().decode(await location.backend.readFile(location.path))
        .replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
      session.shown.recordWithPrints(
        fileKey(location),
        1,
        lines.map(hashLine),
        lines.map(linePrint),
      );
    },
  };
}

/** The id a result diff gave a line with this content (`+N:hh|content` or ` N:hh|content`). */
export function idIn(result: string, content: string): string {
  for (const l of result.split("\n")) {
    const m = /^[ +]([0-9]+:[0-9a-f]{2})\|(.*)$/.exec(l);
    if (m && m[2] === content) return m[1]!;
  }
  throw new Error(`no line ${JSON.stringify(content)} with an id in:\n${result}`);
}

/** An edit result as the model reads it: its suggested calls written as tool calls. */
export async function asText(result: Promise<Guide>): Promise<string> {
  return renderGuide(await result, toolCallSyntax);
}
