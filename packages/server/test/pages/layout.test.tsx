import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Field, formatTime, Notice, Page, PostForm, renderPage, SecretValue, SETTINGS_NAV, SITE_ADMIN_NAV } from '../../src/pages/layout.js';

/** Every text node and attribute value of a document, as the browser would read them back (entities decoded). */
function decode(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&amp;', '&');
}

describe('the page shell', () => {
  test('has the stylesheet and script from this origin, a title, a skip link, and no inline script or style', () => {
    const html = renderPage(
      <Page title="Profile" viewer={{ username: 'alice', siteAdmin: true }} csrf="tok" nav={{ title: 'Settings', items: SETTINGS_NAV, current: '/settings' }}>
        <p>content</p>
      </Page>,
    );
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).toMatch(/<link rel="stylesheet" href="\/\.assets\/gatehouse\.css\?v=[0-9a-f]{12}"\/>/);
    expect(html).toMatch(/<script src="\/\.assets\/gatehouse\.js\?v=[0-9a-f]{12}" defer=""><\/script>/);
    expect(html).toContain('<title>Profile · gatehouse</title>');
    expect(html).toContain('href="#content"');
    expect(html).not.toMatch(/<style|style="|<script>/);
    expect(html).toContain('<a href="/settings" aria-current="page">Profile</a>');
    expect(html).toContain('<a href="/site-admin">Site admin</a>');
    expect(html).toContain('<input type="hidden" name="_csrf" value="tok"/>');
  });

  test('shows "Site admin" only to site administrators, and no account menu when signed out', () => {
    const member = renderPage(<Page title="t" viewer={{ username: 'bob', siteAdmin: false }} csrf="x" nav={null}>{null}</Page>);
    expect(member).not.toContain('/site-admin');
    expect(member).toContain('Signed in as <strong>bob</strong>');
    const out = renderPage(<Page title="Sign in" viewer={null} csrf={null} nav={null}>{null}</Page>);
    expect(out).not.toContain('Sign out');
    expect(out).not.toContain('Signed in as');
  });

  test('the sidebars link every section of the issue', () => {
    expect(SETTINGS_NAV.map((i) => i.href)).toEqual(['/settings', '/settings/password', '/settings/tokens', '/settings/security', '/settings/sessions', '/debug/console']);
    expect(SITE_ADMIN_NAV.map((i) => i.label)).toEqual(['Users', 'Service accounts', 'OAuth apps', 'Audit log', 'Site configuration', 'Sign-in check']);
  });

  // Hostile values in every slot a page fills: they come back as text, never as markup.
  test.prop([fc.string({ unit: 'grapheme', maxLength: 60 }), fc.constantFrom('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' onmouseover='x", '</title><script>x</script>', '&amp;<>"\'')])(
    'renders any value inert (React escapes it)',
    (random, hostile) => {
      const value = `${hostile}${random}`;
      const html = renderPage(
        <Page title={value} viewer={{ username: value, siteAdmin: false }} csrf={value} nav={{ title: value, items: [{ label: value, href: '/x' }], current: '/x' }} notice={{ kind: 'error', text: value }}>
          <PostForm action="/p" csrf={value} label={value}>
            <Field id="f" name="n" label={value} value={value} hint={value} />
          </PostForm>
          <SecretValue id="s" value={value} label={value} />
          <Notice notice={{ kind: 'ok', text: value }} />
        </Page>,
      );
      // outside attribute values (which React quotes and escapes) no tag or handler appears
      const markup = html.replace(/"[^"]*"/g, '""');
      expect(markup).not.toContain('<script>');
      expect(markup).not.toContain('<img');
      for (const tag of markup.match(/<[^>]*>/g) ?? []) expect(tag).not.toMatch(/ on[a-z]+=/);
      expect(markup.match(/<form /g)?.length).toBe(2);
      // every occurrence reads back as the value itself
      expect(decode(html)).toContain(value);
    },
  );
});

describe('formatTime', () => {
  test.each([
    [0, '1970-01-01 00:00 UTC'],
    [Date.UTC(2026, 10, 24, 18, 30, 59), '2026-11-24 18:30 UTC'],
    [null, 'never'],
    [Number.NaN, 'never'],
  ])('%s → %s', (ms, text) => expect(formatTime(ms)).toBe(text));

  test.prop([fc.integer({ min: 0, max: 8_640_000_000_000 })])('is UTC to the minute and never throws', (ms) => {
    expect(formatTime(ms)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  });
});
