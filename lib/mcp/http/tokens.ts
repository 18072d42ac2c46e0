// Bearer tokens for the HTTP server: where they come from (--token-file, ANCHORFS_TOKEN, or one
// generated into the state dir), and a constant-time check that names which agent a request is.
// One token is one agent: its 2026-07-28 state is keyed on it, its sessions are bound to it.

import { AnchorError } from "../../core/errors.ts";

export interface TokenSource {
  tokenFile?: string | undefined;
  envToken?: string | undefined;
  stateDir: string;
}

export interface LoadedTokens {
  tokens: string[];
  /** What to tell the operator at start (the path; the token itself only when just generated). */
  notice: string;
}

const MIN_LENGTH = 16;

export async function loadTokens(source: TokenSource): Promise<LoadedTokens> {
  if (source.tokenFile !== undefined) {
    let text;
    try {
      text = await Deno.readTextFile(source.tokenFile);
    } catch (e) {
      throw new AnchorError({
        code: "TOKEN_FILE_UNREADABLE",
        message: `--token-file ${JSON.stringify(source.tokenFile)} cannot be read: ${
          (e as Error).message
        }`,
        hint: "Pass a file with one token per line (one line per agent), e.g. --token-file " +
          "~/.config/anchorfs/tokens.",
      });
    }
    const tokens = text.split("\n").map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    if (tokens.length === 0) {
      throw new AnchorError({
        code: "TOKEN_FILE_EMPTY",
        message: `--token-file ${JSON.stringify(source.tokenFile)} holds no token.`,
        hint: "Put one token per line (e.g. from `openssl rand -hex 32`); # starts a comment.",
      });
    }
    for (const token of tokens) checkToken(token, `a token in ${source.tokenFile}`);
    return {
      tokens: [...new Set(tokens)],
      notice: `${tokens.length} token(s) from ${source.tokenFile}`,
    };
  }
  if (source.envToken !== undefined && source.envToken.trim() !== "") {
    const token = source.envToken.trim();
    checkToken(token, "ANCHORFS_TOKEN");
    return { tokens: [token], notice: "token from ANCHORFS_TOKEN" };
  }
  const path = `${source.stateDir.replace(/\/+$/, "")}/http-token`;
  try {
    const token = (await Deno.readTextFile(path)).trim();
    if (token.length >= MIN_LENGTH) return { tokens: [token], notice: `token from ${path}` };
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const token = generateToken();
  await Deno.mkdir(source.stateDir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(path, `${token}\n`, { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  return {
    tokens: [token],
    notice: `generated a token, saved in ${path} (mode 0600): ${token}`,
  };
}

function checkToken(token: string, where: string): void {
  if (token.length < MIN_LENGTH || /\s/.test(token)) {
    throw new AnchorError({
      code: "TOKEN_TOO_WEAK",
      message: `${where} is ${
        /\s/.test(token) ? "not one word" : `${token.length} characters long`
      }; a bearer token needs at least ${MIN_LENGTH} characters and no spaces.`,
      hint: "Generate one with `openssl rand -hex 32`.",
    });
  }
}

export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Which configured token (by index) the Authorization header carries, or undefined. Compares
 * SHA-256 digests of every token without stopping early, so timing reveals neither which token
 * matched nor how much of a guess was right.
 */
export class TokenChecker {
  private readonly digests: Promise<Uint8Array[]>;

  constructor(readonly tokens: readonly string[]) {
    this.digests = Promise.all(tokens.map(digest));
  }

  async match(authorization: string | null): Promise<number | undefined> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    const given = await digest(m?.[1] ?? "");
    let found = -1;
    for (const [index, expected] of (await this.digests).entries()) {
      let diff = m ? 0 : 1;
      for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ given[i]!;
      // Branch-free select: found becomes index when diff is 0.
      const hit = ((diff - 1) >> 31) & 1;
      found = hit ? index : found;
    }
    return found >= 0 ? found : undefined;
  }
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}
