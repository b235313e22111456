/**
 * The audit log page (spec §6) as a function: newest first, filters, pages, bad filter values, and entries with
 * hostile details rendered as text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { RouteResponse } from '../../src/kernel/route.js';
import { KNOWN_AUDIT_ACTIONS, KNOWN_AUDIT_ENTITIES } from '../../src/site-admin/audit-log.js';
import type { AuditEvent } from '../../src/store/types.js';
import { callRoute, KIT_START, textOf, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

const DAY = 24 * 60 * 60 * 1000;

/** The entry ids a page lists, in order. */
function idsOn(page: RouteResponse): readonly string[] {
  return [...textOf(page).matchAll(/<tr id="entry-(\d+)"/g)].map((m) => m[1] ?? '');
}

/** The href of the link with this text, decoded, or `null`. */
function linkTo(page: RouteResponse, text: string): string | null {
  const href = new RegExp(`<a href="([^"]*)">${text}</a>`).exec(textOf(page))?.[1];
  return href === undefined ? null : href.replaceAll('&amp;', '&');
}

const event = (entity: string, action: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  entity,
  action,
  reason: null,
  actorUserId: null,
  subjectUserId: null,
  details: {},
  ...extra,
});

describe('GET /site-admin/audit-log', () => {
  it('should page through 120 entries newest first, each entry exactly once, the links keeping the filters', async () => {
    const s = await siteAdminKit();
    for (let i = 0; i < 120; i += 1) await s.deps.audit(event('user', 'created', { details: { n: String(i) } }), s.kit.store);
    await s.deps.audit(event('auth.session', 'signed_in'), s.kit.store);
    const browser = await s.kit.browser(s.admin);
    const seen: string[] = [];
    let path: string | null = '/site-admin/audit-log?entity=user';
    const pages: RouteResponse[] = [];
    while (path !== null) {
      const page = await callRoute(s.routes, browser.get(path));
      expect(page.status).toBe(200);
      pages.push(page);
      seen.push(...idsOn(page));
      path = linkTo(page, 'Older entries');
      if (path !== null) expect(new URL(path, 'http://x').searchParams.get('entity')).toBe('user');
    }
    expect(pages.map((p) => idsOn(p).length)).toStrictEqual([50, 50, 20]);
    expect(seen).toStrictEqual(Array.from({ length: 120 }, (_, i) => String(120 - i)));
    expect(linkTo(pages[0] as RouteResponse, 'Newest entries')).toBeNull();
    expect(linkTo(pages[2] as RouteResponse, 'Newest entries')).toBe('/site-admin/audit-log?entity=user');
  });

  it('should show the §6 entry of an unrecognized Authorization scheme readably, with its count', async () => {
    const s = await siteAdminKit();
    const entry = {
      ...event('auth.accessToken', 'failed', { reason: 'invalid Authorization header', details: { scheme: 'basic', clientAddress: '203.0.113.0/24' } }),
      coalesceKey: 'k',
    };
    for (let i = 0; i < 3; i += 1) {
      await s.deps.audit(entry, s.kit.store);
      s.kit.clock.advance(60_000);
    }
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log?entity=auth.accessToken&action=failed'));
    expect(visibleText(page)).toContain(
      '2023-11-14 22:13 UTC auth.accessToken failed invalid Authorization header — — scheme=basic clientAddress=203.0.113.0/24 schemes=basic 3 last 2023-11-14 22:15 UTC',
    );
  });

  it('should show a sudo entry with actor, subject and the impersonated account', async () => {
    const s = await siteAdminKit();
    await s.deps.audit(
      event('auth.accessToken', 'sudo', {
        actorUserId: s.admin.id,
        subjectUserId: s.member.id,
        impersonatedUserId: s.member.id,
        details: { tokenId: 't1', actor: 'root', subject: 'alice' },
      }),
      s.kit.store,
    );
    await s.deps.audit(event('auth.accessToken', 'sudo_denied', { reason: 'unknown_user', actorUserId: s.admin.id, subjectUserId: 'gone', details: { tokenId: 't1' } }), s.kit.store);
    const text = visibleText(await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log')));
    expect(text).toContain('auth.accessToken sudo_denied unknown_user root gone tokenId=t1 1');
    expect(text).toContain(`auth.accessToken sudo — root alice tokenId=t1 actor=root subject=alice impersonatedUserId=${s.member.id} (alice) 1`);
  });

  it('should filter by entity, action, actor and days, each alone and together', async () => {
    const s = await siteAdminKit();
    // day 0: root creates; day 1: alice signs in; day 2: root deletes, alice creates
    await s.deps.audit(event('user', 'created', { actorUserId: s.admin.id, details: { n: 'a' } }), s.kit.store);
    s.kit.clock.advance(DAY);
    await s.deps.audit(event('auth.session', 'signed_in', { actorUserId: s.member.id, details: { n: 'b' } }), s.kit.store);
    s.kit.clock.advance(DAY);
    await s.deps.audit(event('user', 'deleted', { actorUserId: s.admin.id, details: { n: 'c' } }), s.kit.store);
    await s.deps.audit(event('user', 'created', { actorUserId: s.member.id, details: { n: 'd' } }), s.kit.store);
    const browser = await s.kit.browser(s.admin);
    const day = (offset: number): string => new Date(KIT_START + offset * DAY).toISOString().slice(0, 10);
    const shown = async (query: string): Promise<readonly string[]> => {
      const page = await callRoute(s.routes, browser.get(`/site-admin/audit-log?${query}`));
      expect(page.status).toBe(200);
      return [...textOf(page).matchAll(/n=([a-d])/g)].map((m) => m[1] ?? '');
    };
    expect(await shown('')).toStrictEqual(['d', 'c', 'b', 'a']);
    expect(await shown('entity=user')).toStrictEqual(['d', 'c', 'a']);
    expect(await shown('action=created')).toStrictEqual(['d', 'a']);
    expect(await shown('actor=ROOT')).toStrictEqual(['c', 'a']);
    expect(await shown(`since=${day(1)}`)).toStrictEqual(['d', 'c', 'b']);
    expect(await shown(`until=${day(1)}`)).toStrictEqual(['b', 'a']);
    expect(await shown(`since=${day(1)}&until=${day(1)}`)).toStrictEqual(['b']);
    expect(await shown(`entity=user&action=created&actor=alice&since=${day(2)}`)).toStrictEqual(['d']);
    expect(await shown('entity=oauth.app')).toStrictEqual([]);
  });

  it('should keep the filters in the form and offer to clear them', async () => {
    const s = await siteAdminKit();
    const html = textOf(await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log?entity=user&actor=root&since=2023-11-14')));
    expect(html).toMatch(/<form method="get" action="\/site-admin\/audit-log"/);
    expect(html).toMatch(/<input id="entity" name="entity" type="text" list="entity-options"[^>]*value="user"/);
    expect(html).toMatch(/<input id="action" name="action" type="text" list="action-options"[^>]*value=""/);
    expect(html).toMatch(/<input id="actor" name="actor" type="text"[^>]*value="root"/);
    expect(html).toMatch(/<input id="since" name="since" type="date" value="2023-11-14"/);
    expect(html).toMatch(/<input id="until" name="until" type="date" value=""/);
    expect(html).toContain('<label for="until">');
    expect(html).toContain('>Filter</button>');
    expect(html).toContain('<a href="/site-admin/audit-log">Clear filters</a>');
  });

  it('should say "No such user" and list nothing for an unknown actor', async () => {
    const s = await siteAdminKit();
    await s.deps.audit(event('user', 'created', { actorUserId: s.admin.id }), s.kit.store);
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log?actor=nobody'));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('No account has the username in the actor filter.');
    expect(idsOn(page)).toStrictEqual([]);
  });

  it.each([
    ['a since that is not a day', 'since=yesterday', 'The "since" filter is not a day'],
    ['a day that does not exist', 'until=2025-02-30', 'The "until" filter is not a day'],
    ['since after until', 'since=2025-03-02&until=2025-03-01', 'The "since" day is after the "until" day.'],
    ['a before that is not an id', 'before=abc', '"before" must be an entry id'],
    ['a before of zero', 'before=0', '"before" must be an entry id'],
    ['a before in exponent form', 'before=1e3', '"before" must be an entry id'],
    ['a before beyond safe integers', `before=${'9'.repeat(40)}`, '"before" must be an entry id'],
    ['a filter too long', `entity=${'e'.repeat(201)}`, 'The entity filter is too long'],
  ])('should answer 400 with a clear notice for %s', async (_case, query, message) => {
    const s = await siteAdminKit();
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get(`/site-admin/audit-log?${query}`));
    expect(page.status).toBe(400);
    expect(visibleText(page)).toContain(message);
    expect(textOf(page)).toContain('role="alert"');
  });

  it('should render hostile details as text', async () => {
    const s = await siteAdminKit();
    const long = '\u00e9\u{1F600}\u202e\u0000'.repeat(500);
    await s.deps.audit(
      event('<script>alert(1)</script>', `"'><img src=x>`, { reason: '<b>bold</b>', details: { '<script>': '<script>alert("x")</script>', quote: `"'&`, long } }),
      s.kit.store,
    );
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log'));
    const html = textOf(page);
    expect(html).not.toMatch(/<script>alert|<img src=x>|<b>bold/);
    const text = visibleText(page);
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain(`"'><img src=x>`);
    expect(text).toContain('<script>=<script>alert("x")</script>');
    expect(text).toContain(`quote="'&`);
    expect(text).toContain(`long=${long}`);
  });

  test.prop([fc.dictionary(fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary' }), { maxKeys: 4, noNullPrototype: true })])(
    'should show any details as key=value text and add no markup',
    async (details) => {
      const s = await siteAdminKit();
      await s.deps.audit(event('user', 'created', { details }), s.kit.store);
      const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log'));
      expect(page.status).toBe(200);
      expect(textOf(page).match(/<script/g)?.length).toBe(1); // the page's own asset only
      const text = visibleText(page);
      for (const [key, value] of Object.entries(details)) expect(text).toContain(`${key}=${value}`.replace(/\s+/g, ' ').trim());
    },
  );
});

describe('the filter suggestions', () => {
  /** Every `entity: '…'` and `action: '…'` literal the server's sources write, read from the files themselves. */
  function literals(key: 'entity' | 'action'): ReadonlySet<string> {
    const found = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.tsx?$/.test(entry.name)) for (const m of readFileSync(path, 'utf8').matchAll(new RegExp(`\\b${key}: '([a-zA-Z_.]+)'`, 'g'))) found.add(m[1] ?? '');
      }
    };
    walk(fileURLToPath(new URL('../../src', import.meta.url)));
    return found;
  }

  it('offer every entity and action the server records (§6)', () => {
    expect([...literals('entity')].filter((e) => !KNOWN_AUDIT_ENTITIES.includes(e))).toEqual([]);
    expect([...literals('action')].filter((a) => !KNOWN_AUDIT_ACTIONS.includes(a))).toEqual([]);
    expect(literals('entity').size).toBeGreaterThan(5);
  });
});
