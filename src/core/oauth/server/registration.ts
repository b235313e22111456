/**
 * OAuth app registration: redirect URIs and scopes an administrator registers (spec §2.4, RFC 6749 §3.1.2).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { isObject, isStringArray, ownField } from '../../internal/guard.js';
import { isVisibleAscii } from './parameters.js';
import { MAX_REDIRECT_URIS, OAUTH_SCOPES, type OAuthScope, REQUIRED_OAUTH_SCOPE } from './records.js';

// ---------------------------------------------------------------------------------------------
// App registration

/** Why a redirect URI cannot be registered. */
export type RedirectUriProblem =
  /** Longer than 2000 characters. */
  | 'too_long'
  /** Holds a space, a control character or a non-ASCII character (write them percent-encoded). */
  | 'invalid_characters'
  /** Holds a fragment (`#`), which RFC 6749 §3.1.2 forbids. */
  | 'fragment'
  /** Neither `https:` nor `http:` (lowercase). */
  | 'unsupported_scheme'
  /** `http:` to a host other than a loopback address (RFC 9700 §4.1.3, RFC 8252 §7.3). */
  | 'insecure_http'
  /** No host after `//`. */
  | 'missing_host'
  /** Holds user information (`user@host`). */
  | 'userinfo'
  /** A port that is not 1 to 5 digits. */
  | 'invalid_port';

function redirectUriProblem(uri: string): RedirectUriProblem | null {
  if (uri.length > 2000) return 'too_long';
  if (!isVisibleAscii(uri, false)) return 'invalid_characters';
  if (uri.includes('#')) return 'fragment';
  const https = uri.startsWith('https://');
  if (!https && !uri.startsWith('http://')) return 'unsupported_scheme';
  const rest = uri.slice(https ? 8 : 7);
  let end = rest.length;
  for (const sep of ['/', '?']) {
    const at = rest.indexOf(sep);
    if (at >= 0 && at < end) end = at;
  }
  const authority = rest.slice(0, end);
  if (authority.includes('@')) return 'userinfo';
  let host: string;
  let port: string | null;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return 'missing_host';
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return 'invalid_port';
    port = after === '' ? null : after.slice(1);
  } else {
    const colon = authority.indexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    port = colon < 0 ? null : authority.slice(colon + 1);
  }
  if (host === '' || host === '[]') return 'missing_host';
  if (port !== null && !/^[0-9]{1,5}$/.test(port)) return 'invalid_port';
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(host);
  if (!https && !loopback) return 'insecure_http';
  return null;
}

/** What an administrator asks to register. */
export interface OAuthAppRegistrationInput {
  /** A display name. */
  readonly name: string;
  /** The exact redirect URIs the app will use. */
  readonly redirectUris: readonly string[];
  /** The scopes the app may ask for; must include `user:all`. */
  readonly scopes: readonly string[];
}

/** A validated registration: the name trimmed, URIs and scopes as given. */
export interface OAuthAppRegistration {
  /** The trimmed display name. */
  readonly name: string;
  /** The redirect URIs, each valid and distinct. */
  readonly redirectUris: readonly string[];
  /** The scopes, each known and distinct, `user:all` among them. */
  readonly scopes: readonly OAuthScope[];
}

/** Why a registration is refused. */
export type OAuthAppRegistrationError =
  /** A field has the wrong type at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'name' | 'redirectUris' | 'scopes' }
  /** The name is empty after trimming, longer than 100 characters, or holds a control character. */
  | { readonly code: 'invalid_name' }
  /** No redirect URI is given. */
  | { readonly code: 'missing_redirect_uris' }
  /** More than {@link MAX_REDIRECT_URIS} redirect URIs. */
  | { readonly code: 'too_many_redirect_uris'; readonly max: number }
  /** The redirect URI at `index` is unusable. */
  | { readonly code: 'invalid_redirect_uri'; readonly index: number; readonly reason: RedirectUriProblem }
  /** The redirect URI at `index` repeats an earlier one. */
  | { readonly code: 'duplicate_redirect_uri'; readonly index: number }
  /** A scope is not one of {@link OAUTH_SCOPES}. */
  | { readonly code: 'unknown_scope'; readonly scope: string }
  /** A scope is listed twice. */
  | { readonly code: 'duplicate_scope'; readonly scope: string }
  /** `user:all` is missing (spec §2.4). */
  | { readonly code: 'missing_user_all_scope' };

/**
 * Validates an OAuth app registration (spec §2.4: the app is registered with the scope `user:all`).
 * Redirect URIs must be absolute `https:` URIs without fragment or user information, or `http:` to a
 * loopback host (`localhost`, `127.x.x.x`, `[::1]`) for development and native apps (RFC 9700
 * §4.1.3, RFC 8252 §7.3). Checks run in field order and the first problem is returned.
 *
 * @param input - Name, redirect URIs and scopes.
 * @returns `ok(registration)` or `err` naming the first problem.
 * @example
 * ```ts
 * validateOAuthAppRegistration({ name: ' CI ', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] });
 * // ok({ name: 'CI', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] })
 * validateOAuthAppRegistration({ name: 'CI', redirectUris: ['http://ci.example/cb'], scopes: ['user:all'] });
 * // err({ code: 'invalid_redirect_uri', index: 0, reason: 'insecure_http' })
 * ```
 */
export function validateOAuthAppRegistration(
  input: OAuthAppRegistrationInput,
): Result<OAuthAppRegistration, OAuthAppRegistrationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const name = ownField(raw, 'name');
  if (typeof name !== 'string') return err({ code: 'invalid_input', field: 'name' });
  const redirectUris = ownField(raw, 'redirectUris');
  if (!isStringArray(redirectUris)) return err({ code: 'invalid_input', field: 'redirectUris' });
  const scopes = ownField(raw, 'scopes');
  if (!isStringArray(scopes)) return err({ code: 'invalid_input', field: 'scopes' });

  const trimmed = name.trim();
  let nameOk = trimmed !== '' && trimmed.length <= 100;
  for (let i = 0; i < trimmed.length && nameOk; i++) {
    const c = trimmed.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) nameOk = false;
  }
  if (!nameOk) return err({ code: 'invalid_name' });

  if (redirectUris.length === 0) return err({ code: 'missing_redirect_uris' });
  if (redirectUris.length > MAX_REDIRECT_URIS) return err({ code: 'too_many_redirect_uris', max: MAX_REDIRECT_URIS });
  for (let index = 0; index < redirectUris.length; index++) {
    const uri = redirectUris[index] ?? '';
    const reason = redirectUriProblem(uri);
    if (reason !== null) return err({ code: 'invalid_redirect_uri', index, reason });
    if (redirectUris.indexOf(uri) !== index) return err({ code: 'duplicate_redirect_uri', index });
  }

  const known: OAuthScope[] = [];
  for (const scope of scopes) {
    const k = OAUTH_SCOPES.find((s) => s === scope);
    if (k === undefined) return err({ code: 'unknown_scope', scope });
    if (known.includes(k)) return err({ code: 'duplicate_scope', scope });
    known.push(k);
  }
  if (!known.includes(REQUIRED_OAUTH_SCOPE)) return err({ code: 'missing_user_all_scope' });
  return ok({ name: trimmed, redirectUris: [...redirectUris], scopes: known });
}
