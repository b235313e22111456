/**
 * How the code hosts' REST APIs are read (spec §5.3): one bearer-token client with a deadline per page, every page
 * of a list followed (same origin only, at most 100 pages), and defensive readers of the JSON fields.
 *
 * @module
 */
import type { ExternalEmail, ExternalIdentity } from 'gatehouse-auth';
import { withDeadline } from './upstream.js';

/**
 * Fetching an identity failed in a way that leaves nobody to sign in (the user or the emails could not be read).
 *
 * @example
 * ```ts
 * const e: IdentityFetchError = { code: 'upstream_failed', what: 'emails' };
 * ```
 */
export interface IdentityFetchError {
  /** Always `upstream_failed`. */
  readonly code: 'upstream_failed';
  /** What could not be read. */
  readonly what: 'user' | 'emails';
}

/** The `fetch` the adapters call. @internal */
export type Fetch = typeof fetch;

/** A bearer-token client of one code host's API: a JSON or text body, or `null` on any failure. @internal */
export interface ApiClient {
  readonly getJson: (url: string) => Promise<{ readonly body: unknown; readonly response: Response } | null>;
  readonly getText: (url: string) => Promise<string | null>;
}

/** At most this many pages of one list are read; a longer list counts as cut short. */
const MAX_PAGES = 100;

/**
 * The API client for an access token. Every page is one call under one deadline (the request and its body): a
 * host that stops answering makes that page fail, as an HTTP error would.
 *
 * @internal
 */
export function apiClient(fetchFn: Fetch, token: string, timeoutMs: number): ApiClient {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const get = async <T>(url: string, read: (response: Response) => Promise<T>): Promise<T | null> => {
    try {
      return await withDeadline(timeoutMs, async (signal) => {
        const response = await fetchFn(url, { headers, redirect: 'error', signal });
        if (!response.ok) {
          await response.body?.cancel();
          return null;
        }
        return read(response);
      });
    } catch {
      return null;
    }
  };
  return {
    getJson: (url) =>
      get(url, async (response) => {
        const body: unknown = await response.json();
        return { body, response };
      }),
    getText: (url) => get(url, (response) => response.text()),
  };
}

/** An own property of a JSON object, or `undefined`. @internal */
export function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
  const found: unknown = Reflect.get(value, key);
  return found;
}

/** A non-empty string property, or `null`. @internal */
export function stringField(value: unknown, key: string): string | null {
  const v = field(value, key);
  return typeof v === 'string' && v !== '' ? v : null;
}

/** An id property (a safe integer or a non-empty string) as text, or `null`. @internal */
export function idField(value: unknown, key: string): string | null {
  const v = field(value, key);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return typeof v === 'string' && v !== '' ? v : null;
}

function linkNext(header: string | null): string | null {
  if (header === null) return null;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m === null) continue;
    const params = m[2] ?? '';
    if (/(^|;)\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(params)) return m[1] ?? null;
  }
  return null;
}

// The next page of a list: `Link: <…>; rel="next"`, else `x-next-page`, else a `next` URL in the body.
// Only same-origin pages are followed (the access token must not leave the host).
function nextPage(current: string, response: Response, body: unknown): string | null | 'foreign' {
  const link = linkNext(response.headers.get('link'));
  const nextHeader = response.headers.get('x-next-page');
  const bodyNext = stringField(body, 'next');
  let next: URL | null = null;
  try {
    if (link !== null) next = new URL(link, current);
    else if (nextHeader !== null && /^\d+$/.test(nextHeader.trim())) {
      next = new URL(current);
      next.searchParams.set('page', nextHeader.trim());
    } else if (bodyNext !== null) next = new URL(bodyNext, current);
  } catch {
    return 'foreign';
  }
  if (next === null) return null;
  return next.origin === new URL(current).origin ? next.href : 'foreign';
}

interface Pages {
  readonly items: readonly unknown[];
  readonly complete: boolean;
}

/** Every item of a paged list, and whether the list was read to its end. @internal */
export async function allPages(client: ApiClient, first: string, itemsOf: (body: unknown) => readonly unknown[] | null): Promise<Pages> {
  const items: unknown[] = [];
  let url: string | null = first;
  for (let page = 0; url !== null; page++) {
    if (page >= MAX_PAGES) return { items, complete: false };
    const got = await client.getJson(url);
    const pageItems = got === null ? null : itemsOf(got.body);
    if (got === null || pageItems === null) return { items, complete: false };
    items.push(...pageItems);
    const next = nextPage(url, got.response, got.body);
    if (next === 'foreign') return { items, complete: false };
    url = next;
  }
  return { items, complete: true };
}

/** The items of a page whose body is a JSON array. @internal */
export const arrayBody = (body: unknown): readonly unknown[] | null => (Array.isArray(body) ? body : null);
/** The items of a page whose body is `{ values: [...] }`. @internal */
export const valuesBody = (body: unknown): readonly unknown[] | null => {
  const values = field(body, 'values');
  return Array.isArray(values) ? values : null;
};

/** Emails with the primary ones first, without the `primary` flag. @internal */
export function primaryFirst(emails: readonly (ExternalEmail & { readonly primary: boolean })[]): readonly ExternalEmail[] {
  return [...emails.filter((e) => e.primary), ...emails.filter((e) => !e.primary)].map((e) => ({
    address: e.address,
    verified: e.verified,
  }));
}

/** What an adapter read: the identity, or why there is none. @internal */
export type Fetched = { readonly ok: true; readonly identity: ExternalIdentity } | { readonly ok: false; readonly error: IdentityFetchError };

/** An identity that could not be read. @internal */
export const failed = (what: IdentityFetchError['what']): Fetched => ({ ok: false, error: { code: 'upstream_failed', what } });
