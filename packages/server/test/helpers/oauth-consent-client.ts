/**
 * A browser's part of the OAuth consent page in tests over HTTP: read the page's form (its action, hidden fields
 * and `_csrf`), then post it with Approve or Deny, carrying the page's `gatehouse_csrf` cookie and this site's
 * `Origin` as a browser would.
 */
import { CSRF_COOKIE } from '../../src/pages/csrf.js';

/** An attribute value as the browser reads it back (React escapes these five). */
function decode(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&amp;', '&');
}

/** The consent form of a page: where it posts and its hidden fields, in order; `null` when the page has none. */
export function consentForm(html: string): { readonly action: string; readonly fields: readonly (readonly [string, string])[] } | null {
  const form = /<form method="post" action="(\/\.auth\/idp\/oauth\/authorize)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (form === null) return null;
  const fields: [string, string][] = [];
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/>/g)) {
    fields.push([decode(input[1] ?? ''), decode(input[2] ?? '')]);
  }
  return { action: decode(form[1] ?? ''), fields };
}

/** The `name=value` pair of a `Set-Cookie` of `headers`, or `null`. */
function setCookie(headers: Headers, name: string): string | null {
  for (const line of headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    if (pair.startsWith(`${name}=`)) return pair;
  }
  return null;
}

/**
 * Answers the consent page `page` (the `200` of `GET /.auth/idp/oauth/authorize`) as the signed-in browser with
 * `cookie` (and `headers`) would: posts its form with `decision` and the page's cookies. Resolves the answer (a
 * redirect, unread).
 */
export async function answerConsent(
  base: string,
  page: Response,
  cookie: string,
  decision: 'approve' | 'deny' = 'approve',
  headers: Readonly<Record<string, string>> = {},
): Promise<Response> {
  const html = await page.text();
  const form = consentForm(html);
  if (form === null) throw new Error(`no consent form on the page (status ${page.status})`);
  const csrf = setCookie(page.headers, CSRF_COOKIE);
  const cookies = [cookie, ...(csrf === null ? [] : [csrf])].filter((c) => c !== '').join('; ');
  const body = new URLSearchParams([...form.fields.map(([k, v]): [string, string] => [k, v]), ['decision', decision]]);
  return fetch(new URL(form.action, base), {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, origin: new URL(base).origin, 'sec-fetch-site': 'same-origin' },
    body: body.toString(),
  });
}

/**
 * `GET`s an authorization URL as the browser with `cookie`, approving on the consent page when it is shown (the
 * first time an account authorizes an app for a scope). Resolves the redirect to the app and whether the page was
 * shown.
 */
export async function authorizeApproving(authorizeURL: URL | string, cookie: string, headers: Readonly<Record<string, string>> = {}): Promise<{ readonly response: Response; readonly consentShown: boolean }> {
  const url = new URL(authorizeURL);
  const first = await fetch(url, { redirect: 'manual', headers: { ...headers, ...(cookie === '' ? {} : { cookie }) } });
  if (first.status !== 200) return { response: first, consentShown: false };
  return { response: await answerConsent(url.origin, first, cookie, 'approve', headers), consentShown: true };
}
