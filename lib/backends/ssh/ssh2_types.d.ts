// The slice of ssh2's API anchorfs uses, typed here instead of through @types/ssh2: that
// package pulls @types/node into the whole program, which retypes global setTimeout and breaks
// type checking of unrelated modules. Keep in step with ssh2 1.17.

type Callback<T = void> = (err: Error | null | undefined, value: T) => void;

export interface ParsedKey {
  type: string;
  comment: string;
  getPublicSSH(): Uint8Array;
}

export interface AnyAuthMethod {
  type: "publickey" | "agent" | "none" | "password";
  username: string;
  key?: ParsedKey;
  agent?: string;
}

export interface Readable {
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export interface ConnectConfig {
  host?: string;
  port?: number;
  username?: string;
  readyTimeout?: number;
  keepaliveInterval?: number;
  keepaliveCountMax?: number;
  hostVerifier?: (key: Uint8Array, verify: (ok: boolean) => void) => void;
  authHandler?: (
    methodsLeft: string[] | null,
    partialSuccess: boolean | null,
    next: (method: AnyAuthMethod | false) => void,
  ) => void;
  algorithms?: { serverHostKey?: { prepend?: string[] } | string[] };
  sock?: Readable;
}

export interface Stats {
  mode: number;
  size: number;
  mtime: number;
  atime: number;
}

export type Attributes = Partial<Stats>;

export interface ChannelStderr {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
}

export interface ClientChannel extends Readable {
  stderr: ChannelStderr;
  on(event: "data", listener: (chunk: Uint8Array) => void): this;
  on(event: "exit", listener: (code: number | null, signal?: string) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "close", listener: () => void): this;
  end(data?: Uint8Array | string): void;
  /** Closes the channel from this side (SSH_MSG_CHANNEL_CLOSE). */
  close(): void;
  write(data: Uint8Array | string): boolean;
  pause(): this;
  resume(): this;
}

export interface SFTPWrapper {
  on(event: "close", listener: () => void): this;
  stat(path: string, cb: Callback<Stats>): void;
  lstat(path: string, cb: Callback<Stats>): void;
  fstat(handle: Uint8Array, cb: Callback<Stats>): void;
  open(path: string, flags: string, cb: Callback<Uint8Array>): void;
  open(path: string, flags: string, attrs: Attributes, cb: Callback<Uint8Array>): void;
  close(handle: Uint8Array, cb: Callback<void>): void;
  read(
    handle: Uint8Array,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    cb: (err: Error | null | undefined, bytesRead: number) => void,
  ): void;
  write(
    handle: Uint8Array,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    cb: Callback<void>,
  ): void;
  chmod(path: string, mode: number, cb: Callback<void>): void;
  mkdir(path: string, cb: Callback<void>): void;
  unlink(path: string, cb: Callback<void>): void;
  readdir(path: string, cb: Callback<{ filename: string; attrs: Attributes }[]>): void;
  realpath(path: string, cb: Callback<string>): void;
  readlink(path: string, cb: Callback<string>): void;
  /** Creates `linkPath` pointing to `targetPath` (ssh2 swaps them for OpenSSH's server). */
  symlink(targetPath: string, linkPath: string, cb: Callback<void>): void;
  ext_openssh_rename(from: string, to: string, cb: Callback<void>): void;
  ext_openssh_fsync(handle: Uint8Array, cb: Callback<void>): void;
  rmdir(path: string, cb: Callback<void>): void;
  utimes(path: string, atime: number, mtime: number, cb: Callback<void>): void;
}

export declare class Client {
  connect(config: ConnectConfig): this;
  on(event: "ready" | "close" | "end", listener: () => void): this;
  on(event: "error", listener: (err: Error & { level?: string; code?: string }) => void): this;
  once(event: "close", listener: () => void): this;
  end(): this;
  /** Destroys the socket at once (a connect in progress included). */
  destroy(): this;
  setNoDelay(noDelay?: boolean): this;
  exec(command: string, cb: Callback<ClientChannel>): void;
  sftp(cb: Callback<SFTPWrapper>): void;
  forwardOut(
    srcIP: string,
    srcPort: number,
    dstIP: string,
    dstPort: number,
    cb: Callback<ClientChannel>,
  ): void;
}

export declare const utils: {
  parseKey(data: Uint8Array | string, passphrase?: string): ParsedKey | ParsedKey[] | Error;
};

declare const ssh2: { Client: typeof Client; utils: typeof utils };
export default ssh2;
