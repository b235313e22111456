/**
 * Syntax helpers shared by the OAuth endpoints: request parameters, scopes, PKCE (RFC 6749 Appendix A, §3.3; RFC 7636 §4).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @internal
 * @module
 */
import { Result } from 'neverthrow';
import { BASE64URL_ALPHABET, base64UrlEncode } from '../../internal/encoding.js';
import { constantTimeEqual } from '../../internal/constant-time.js';
import { REQUIRED_OAUTH_SCOPE, type Sha256 } from './records.js';

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** Whether every character of `text` is in `%x20-7E` (VSCHAR, RFC 6749 Appendix A). */
export function isVisibleAscii(text: string, allowSpace: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || c < 0x20 || (c === 0x20 && !allowSpace)) return false;
  }
  return true;
}

/** Parses request parameters into name → values, or `null` when they are not a list of string pairs. */
export function collectParameters(value: unknown): Map<string, string[]> | null {
  if (!Array.isArray(value)) return null;
  const out = new Map<string, string[]>();
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const name: unknown = entry[0];
    const v: unknown = entry[1];
    if (typeof name !== 'string' || typeof v !== 'string') return null;
    const list = out.get(name);
    if (list === undefined) out.set(name, [v]);
    else list.push(v);
  }
  return out;
}

/**
 * A parameter's value: `undefined` when absent, `null` when repeated (RFC 6749 §3.1, §3.2: a
 * parameter MUST NOT be included more than once). An empty value counts as absent (RFC 6749 §3.1:
 * parameters sent without a value MUST be treated as if omitted).
 */
export function single(params: Map<string, string[]>, name: string): string | null | undefined {
  const values = params.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) return null;
  const value = values[0];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Parses an RFC 6749 §3.3 `scope`: scope-tokens of `%x21 / %x23-5B / %x5D-7E` separated by single
 * spaces. Returns the distinct tokens in order, or `null` when malformed.
 */
export function parseScope(text: string): string[] | null {
  const out: string[] = [];
  for (const token of text.split(' ')) {
    if (token === '') return null;
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) return null;
    }
    if (!out.includes(token)) out.push(token);
  }
  return out;
}

/** `application/x-www-form-urlencoded` decoding of one value (RFC 6749 Appendix B), or `null`. */
export const formDecode: (text: string) => Result<string, null> = Result.fromThrowable(
  (text: string): string => decodeURIComponent(text.replace(/\+/g, ' ')),
  (): null => null,
);

/** The unreserved characters of RFC 7636 §4.1 (`ALPHA / DIGIT / "-" / "." / "_" / "~"`). */
function isUnreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e
  );
}

/** RFC 7636 §4.1: `code_verifier = 43*128unreserved`. */
export function isCodeVerifier(text: string): boolean {
  if (text.length < 43 || text.length > 128) return false;
  for (let i = 0; i < text.length; i++) if (!isUnreserved(text.charCodeAt(i))) return false;
  return true;
}

/** RFC 7636 §4.2 with S256: BASE64URL of a 32-byte digest, exactly 43 characters. */
export function isS256Challenge(text: string): boolean {
  if (text.length !== 43) return false;
  for (let i = 0; i < text.length; i++) if (BASE64URL_ALPHABET.indexOf(text.charAt(i)) < 0) return false;
  return true;
}

/** Whether `scopes` (already distinct) holds `user:all` and only scopes `allowed` holds. */
export function scopeProblem(scopes: readonly string[], allowed: readonly string[]): 'not_allowed' | 'missing_user_all' | null {
  if (!scopes.every((s) => allowed.includes(s))) return 'not_allowed';
  if (!scopes.includes(REQUIRED_OAUTH_SCOPE)) return 'missing_user_all';
  return null;
}

const safeCall = Result.fromThrowable(
  (sha256: Sha256, bytes: Uint8Array): unknown => sha256(bytes),
  (): null => null,
);

/** RFC 7636 §4.6: whether BASE64URL(SHA256(ASCII(verifier))) equals the challenge (constant time). */
export function pkceMatches(verifier: string, challenge: string, sha256: Sha256): boolean | null {
  const bytes = new Uint8Array(verifier.length);
  for (let i = 0; i < verifier.length; i++) bytes[i] = verifier.charCodeAt(i) & 0x7f;
  const digest = safeCall(sha256, bytes);
  if (digest.isErr() || !(digest.value instanceof Uint8Array) || digest.value.length !== 32) return null;
  return constantTimeEqual(base64UrlEncode(digest.value), challenge);
}
