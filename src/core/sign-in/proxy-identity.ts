/**
 * The identity an HTTP authentication proxy passes in request headers (spec §5.3 `http-header`).
 *
 * @module
 */
import { err, ok, safeTry, type Result } from 'neverthrow';
import type { HttpHeaderProvider } from '../auth-providers.js';
import type { ExternalIdentity } from '../external-identity.js';
import { asciiLowercase, emailDomain } from '../internal/email-address.js';
import { type FieldProblem, isObject, ownField, readOptionalString } from '../internal/guard.js';

/**
 * Request headers keyed by **lowercased** name, as Node's `IncomingMessage.headers` gives them. A
 * header sent several times may be an array (or joined with `, `).
 */
export type ProxyHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Why {@link identityFromProxyHeaders} found no identity. */
export type ProxyIdentityError =
  /** The provider is not an `http-header` entry, names neither header, or a header field has the wrong type. */
  | { readonly code: 'invalid_provider'; readonly path: string; readonly expected: string }
  /** `headers` is not an object at run time. */
  | { readonly code: 'invalid_headers' }
  /** An identity header was sent more than once with different values; which one is meant is unknowable. */
  | { readonly code: 'multiple_header_values'; readonly header: string }
  /** The email header's value (prefix removed) is not a single bare email address (exactly one `@`, no spaces, commas or other specials). */
  | { readonly code: 'malformed_email_header'; readonly header: string }
  /** None of the configured headers carries a value (the proxy did not authenticate the request). */
  | { readonly code: 'missing_identity_headers'; readonly headers: readonly string[] };

function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return value.slice(start, end);
}

// The header's single value, `null` when absent or empty.
function headerValue(headers: object, name: string): Result<string | null, ProxyIdentityError> {
  const raw = ownField(headers, name);
  if (typeof raw === 'string') {
    const value = trimOws(raw);
    return ok(value === '' ? null : value);
  }
  if (!Array.isArray(raw)) return ok(null);
  const values = new Set<string>();
  for (const element of raw) {
    if (typeof element !== 'string') continue;
    const value = trimOws(element);
    if (value !== '') values.add(value);
  }
  if (values.size > 1) return err({ code: 'multiple_header_values', header: name });
  return ok([...values][0] ?? null);
}

// ASCII characters that never appear in a single bare address (RFC 5322 §3.2.3 "specials" outside the one `@`,
// plus the quote that would start a quoted local part): they mark a display name (`Alice <a@x>`), a list
// (`a@x, b@x`), a group (`team: a@x;`) or a prefix the proxy added (`accounts.google.com:a@x`).
const NOT_IN_ADDRESS = new Set([...'()<>[]:;,\\"'].map((c) => c.charCodeAt(0)));

// One bare address: exactly one `@` with text on both sides, no spaces, controls or specials, and a domain
// without empty labels. Non-ASCII text is allowed (RFC 6532 internationalized addresses).
function isSingleEmailAddress(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || NOT_IN_ADDRESS.has(c)) return false;
  }
  const domain = emailDomain(value);
  return domain !== null && !domain.startsWith('.') && !domain.endsWith('.') && !domain.includes('..');
}

// The value with `prefix` removed once, when it starts with it (case-sensitively); `null` when nothing is left.
function withoutPrefix(value: string | null, prefix: string | undefined): string | null {
  const stripped = value !== null && prefix !== undefined && value.startsWith(prefix) ? value.slice(prefix.length) : value;
  return stripped === '' ? null : stripped;
}

function toProviderError(problem: FieldProblem): ProxyIdentityError {
  return { code: 'invalid_provider', path: problem.path, expected: problem.expected };
}

function readHeaderName(provider: object, key: string): Result<string | undefined, ProxyIdentityError> {
  return readOptionalString(provider, '', key, true)
    .map((name) => (name === undefined ? undefined : asciiLowercase(name)))
    .mapErr(toProviderError);
}

/**
 * Builds the {@link ExternalIdentity} an `http-header` provider's proxy asserts (spec §5.3
 * `http-header` rules 1–2). Header names are matched lowercased, so `headers` must have lowercased
 * keys (Node's `req.headers` has). Values are trimmed of spaces and tabs; an empty value is absent.
 *
 * - `username`: the value of `usernameHeader`, with `stripUsernameHeaderPrefix` removed only when
 *   the value starts with it (case-sensitively); `null` when absent (or nothing is left).
 * - `emails`: the value of `emailHeader`, with the same prefix removed the same way, as one verified
 *   email (the proxy vouches for it). What is left must be a single bare address (one `@`, no spaces,
 *   no `,` `;` `:` `<` `>` and other specials), else the whole identity is refused with
 *   `malformed_email_header`, so a value such as `accounts.google.com:alice@example.com` is never
 *   stored as an address.
 * - `accountId`: the raw email, or else the raw username (prefixes included): the proxy's own name
 *   for the person, kept as sent.
 *
 * @param provider - An `http-header` provider entry.
 * @param headers - The request's headers, names lowercased.
 * @returns The identity, or `err` when the provider is not usable, a header is ambiguous or
 * malformed, or neither header carries a value.
 * @example
 * ```ts
 * const proxy: HttpHeaderProvider = {
 *   type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email',
 *   stripUsernameHeaderPrefix: 'sso:', allowSignup: true,
 * };
 * identityFromProxyHeaders(proxy, { 'x-forwarded-user': 'sso:alice', 'x-forwarded-email': 'alice@example.com' });
 * // ok({ accountId: 'alice@example.com', username: 'alice', emails: [{ address: 'alice@example.com', verified: true }] })
 * identityFromProxyHeaders({ ...proxy, emailHeader: 'X-Goog-Authenticated-User-Email', stripUsernameHeaderPrefix: 'accounts.google.com:' },
 *   { 'x-goog-authenticated-user-email': 'accounts.google.com:alice@example.com' });
 * // ok({ accountId: 'accounts.google.com:alice@example.com', username: null,
 * //      emails: [{ address: 'alice@example.com', verified: true }] })
 * identityFromProxyHeaders(proxy, {});
 * // err({ code: 'missing_identity_headers', headers: ['x-forwarded-user', 'x-forwarded-email'] })
 * ```
 */
export function identityFromProxyHeaders(
  provider: HttpHeaderProvider,
  headers: ProxyHeaders,
): Result<ExternalIdentity, ProxyIdentityError> {
  if (!isObject(provider) || Array.isArray(provider)) {
    return err({ code: 'invalid_provider', path: '', expected: 'object' });
  }
  if (ownField(provider, 'type') !== 'http-header') {
    return err({ code: 'invalid_provider', path: 'type', expected: 'http-header' });
  }
  return safeTry(function* () {
    const usernameHeader = yield* readHeaderName(provider, 'usernameHeader');
    const emailHeader = yield* readHeaderName(provider, 'emailHeader');
    const prefix = yield* readOptionalString(provider, '', 'stripUsernameHeaderPrefix', false).mapErr(toProviderError);
    if (usernameHeader === undefined && emailHeader === undefined) {
      return err({ code: 'invalid_provider', path: 'usernameHeader', expected: 'usernameHeader or emailHeader' });
    }
    if (!isObject(headers)) return err({ code: 'invalid_headers' });
    const rawUsername = usernameHeader === undefined ? null : yield* headerValue(headers, usernameHeader);
    const rawEmail = emailHeader === undefined ? null : yield* headerValue(headers, emailHeader);
    // Rule 2's prefix is the proxy's, whichever header carries it (Google IAP prefixes the email header too).
    const email = withoutPrefix(rawEmail, prefix);
    if (rawEmail !== null && emailHeader !== undefined && (email === null || !isSingleEmailAddress(email))) {
      return err({ code: 'malformed_email_header', header: emailHeader });
    }
    const username = withoutPrefix(rawUsername, prefix);
    const accountId = rawEmail ?? rawUsername;
    if (accountId === null) {
      const names = [usernameHeader, emailHeader].filter((name) => name !== undefined);
      return err({ code: 'missing_identity_headers', headers: names });
    }
    const identity: ExternalIdentity = {
      accountId,
      username,
      emails: email === null ? [] : [{ address: email, verified: true }],
    };
    return ok(identity);
  });
}
