/**
 * Site admin → Sign-in check as a function: site administrators only, the decision and the trace with each rule's
 * text, a bad line refused with 400, nothing written; and the audit log showing a refusal's trace, found by its
 * reference code.
 */
import { describe, expect, it } from 'vitest';
import { SIGN_IN_RULES } from 'gatehouse-auth';
import type { Store } from '../../src/store/types.js';
import { callRoute, textOf, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

const CONFIGURATION = JSON.stringify({
  externalURL: 'https://gatehouse.example.com',
  'auth.providers': [
    { type: 'builtin', allowSignup: false },
    { type: 'hosta', clientID: 'id', clientSecret: 'the-hosta-client-secret', allowSignup: true, allowOrgs: ['acme'], allowOrgsMap: { globex: ['Core Team'] } },
  ],
});

async function everything(store: Store): Promise<unknown> {
  const users = await store.accounts.list({ first: 1000 });
  return { users, links: await Promise.all(users.map((u) => store.accounts.links(u.id))), audit: await store.audit.list(1000) };
}

const FORM = { provider: '1', username: 'rowan', emails: 'rowan@example.com\nold@example.com unverified', orgs: 'initech', teams: 'globex: core team', groups: '', headers: '', signedIn: '' };

describe('Site admin → Sign-in check', () => {
  it('should explain for a site administrator, with each rule and its text, and write nothing', async () => {
    const s = await siteAdminKit({ configuration: CONFIGURATION });
    const admin = await s.kit.browser(s.admin);
    const form = await callRoute(s.routes, admin.get('/site-admin/sign-in-check'));
    expect(form.status).toBe(200);
    expect(textOf(form)).toContain('<option value="1">1: hosta</option>');
    expect(textOf(form)).toContain('href="/site-admin/sign-in-check"');
    const before = await everything(s.kit.store);
    const page = await callRoute(s.routes, admin.post('/site-admin/sign-in-check', FORM));
    expect(page.status).toBe(200);
    const html = textOf(page);
    expect(html).toContain('data-decision="deny"');
    expect([...html.matchAll(/data-rule="([^"]+)" data-outcome="([^"]+)"/gu)].map((m) => [m[1], m[2]])).toStrictEqual([
      ['§5.3 hosta rule 4', 'not_admitted'],
      ['§5.3 hosta rule 6', 'teams_consulted'],
      ['§5.3 hosta rule 5', 'not_admitted'],
      ['§7 rule 3', 'deny'],
    ]);
    expect(visibleText(page)).toContain(SIGN_IN_RULES['§5.3 hosta rule 6']);
    expect(visibleText(page)).toContain('team names must match exactly');
    expect(html).not.toContain('the-hosta-client-secret');
    expect(await everything(s.kit.store)).toStrictEqual(before);
  });

  it('should name the account a new person would get (§5.5)', async () => {
    const s = await siteAdminKit({ configuration: CONFIGURATION });
    const admin = await s.kit.browser(s.admin);
    // "alice" is taken by the kit's member: the would-be account gets a suffix
    const page = await callRoute(s.routes, admin.post('/site-admin/sign-in-check', { ...FORM, username: 'Alice', orgs: 'ACME', teams: '' }));
    expect(textOf(page)).toContain('data-decision="create"');
    expect(visibleText(page)).toMatch(/A new account would be created, named Alice-[a-z]{5}\./u);
    expect(textOf(page)).toContain('data-rule="§5.5 rule 8"');
  });

  it.each([
    ['a team line without an org', { teams: 'Core Team' }, 'A team line must read'],
    ['a group line without a level', { groups: 'acme/platform' }, 'A group line must read'],
    ['an unknown provider', { provider: '7' }, 'No configured provider'],
    ['an unknown signed-in account', { signedIn: 'nobody' }, 'No account has the signed-in username'],
  ])('should answer 400 for %s, writing nothing', async (_name, change, message) => {
    const s = await siteAdminKit({ configuration: CONFIGURATION });
    const admin = await s.kit.browser(s.admin);
    const before = await everything(s.kit.store);
    const page = await callRoute(s.routes, admin.post('/site-admin/sign-in-check', { ...FORM, ...change }));
    expect(page.status).toBe(400);
    expect(visibleText(page)).toContain(message);
    expect(await everything(s.kit.store)).toStrictEqual(before);
  });

  it('should refuse a member who is not a site administrator', async () => {
    const s = await siteAdminKit({ configuration: CONFIGURATION });
    const member = await s.kit.browser(s.member);
    expect((await callRoute(s.routes, member.get('/site-admin/sign-in-check'))).status).toBe(403);
    expect((await callRoute(s.routes, member.post('/site-admin/sign-in-check', FORM))).status).toBe(403);
  });
});

describe('the audit log shows a refusal\'s trace', () => {
  it('should find a refusal by its reference code (any case) and show its trace as a list of rules', async () => {
    const s = await siteAdminKit({ configuration: CONFIGURATION });
    const trace = JSON.stringify([
      { rule: '§5.3 hosta rule 5', facts: { teams: [{ org: 'globex', name: '<b>core</b>' }] }, outcome: 'not_admitted', note: 'A team name differs.' },
      { rule: '§7 rule 3', facts: { reason: 'not_in_allowed_orgs_or_teams' }, outcome: 'deny', note: 'Refused.' },
    ]);
    const entry = (reference: string) => ({ entity: 'auth.session', action: 'failed', reason: 'not_in_allowed_orgs_or_teams', actorUserId: null, subjectUserId: null, details: { provider: 'hosta', reference, trace } });
    await s.deps.audit(entry('K7QX2M9P'), s.kit.store);
    await s.deps.audit(entry('AAAAAAAA'), s.kit.store);
    const admin = await s.kit.browser(s.admin);
    const page = await callRoute(s.routes, admin.get('/site-admin/audit-log?reference=k7qx2m9p'));
    expect(page.status).toBe(200);
    const html = textOf(page);
    expect([...html.matchAll(/<tr id="entry-(\d+)"/gu)].map((m) => m[1])).toStrictEqual(['1']);
    expect(html).toContain('reference=K7QX2M9P');
    expect(html).toContain('Sign-in trace (2 rules)');
    expect(html).toContain('data-rule="§5.3 hosta rule 5"');
    // stored text is shown as text
    expect(html).not.toContain('<b>core</b>');
    expect(html).not.toContain(`trace=${trace.slice(0, 10)}`);
  });
});
