/**
 * Site admin → Users, one account's "Sign-in" panel: "Make a password reset link" shows the link to copy (mailed
 * when mail is on, the page saying when mail is off), never for a service account, audited; as functions over the
 * kit's memory store with the real account links.
 */
import { describe, expect, it } from 'vitest';
import { accountLinkPorts } from '../../src/operations/account-link-ports.js';
import { makeResetLinkAsAdmin } from '../../src/operations/password-reset.js';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import { callRoute, textOf, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

async function kitWithLinks() {
  const base = await siteAdminKit();
  const { kit } = base;
  const ports = accountLinkPorts({ store: kit.store, mailQueue: null, now: kit.clock.now, randomBytes: kit.deps.randomBytes, baseURL: () => 'http://gatehouse.test' });
  const deps = {
    ...base.deps,
    passwordResetLink: (admin: Parameters<typeof makeResetLinkAsAdmin>[1], userId: string, audit: typeof kit.deps.audit) =>
      makeResetLinkAsAdmin({ store: kit.store, now: kit.clock.now, audit, ports, expiry: () => kit.deps.configuration }, admin, userId),
  };
  return { ...base, routes: siteAdminRoutes(deps) };
}

describe('Users: Make a password reset link', () => {
  it('should show a single-use link to copy, say that mail is off, and audit it', async () => {
    const { kit, routes, admin, member } = await kitWithLinks();
    const browser = await kit.browser(admin);
    const page = await callRoute(routes, browser.get(`/site-admin/users/user?id=${member.id}`));
    expect(textOf(page)).toContain('Make a password reset link');
    expect(visibleText(page)).toContain('Locked No');
    const made = await callRoute(routes, browser.post('/site-admin/users/reset-link', { id: member.id }));
    expect(made.status).toBe(200);
    const url = /id="reset-link"[^>]*value="([^"]+)"/.exec(textOf(made))?.[1] ?? /value="([^"]+)"[^>]*id="reset-link"/.exec(textOf(made))?.[1];
    expect(url).toMatch(/^http:\/\/gatehouse\.test\/\.auth\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(visibleText(made)).toContain('Mail is off on this site');
    const stored = await kit.store.links.find(member.id, 'reset_password');
    expect(stored?.usedAt).toBeNull();
    expect(JSON.stringify(stored)).not.toContain(new URL(url ?? 'http://x').searchParams.get('token') ?? 'none');
    expect((await kit.auditEntries()).at(-1)).toMatchObject({ entity: 'user', action: 'password_reset_link_created', actorUserId: admin.id, subjectUserId: member.id, details: { emailSent: 'false' } });
  });

  it('should offer no link for a service account, and refuse one asked for anyway, making nothing', async () => {
    const { kit, routes, admin } = await kitWithLinks();
    const service = (
      await kit.store.accounts.create({ usernames: ['ci-bot'], origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: 0 })
    )._unsafeUnwrap();
    const browser = await kit.browser(admin);
    const page = await callRoute(routes, browser.get(`/site-admin/users/user?id=${service.id}`));
    expect(textOf(page)).not.toContain('Make a password reset link');
    expect(visibleText(page)).toContain('A service account has no password');
    const refused = await callRoute(routes, browser.post('/site-admin/users/reset-link', { id: service.id }));
    expect(refused.status).toBe(400);
    expect(visibleText(refused)).toContain('A service account has no password');
    expect(await kit.store.links.find(service.id, 'reset_password')).toBeNull();
  });

  it('should refuse a member (403)', async () => {
    const { kit, routes, member, admin } = await kitWithLinks();
    const answer = await callRoute(routes, (await kit.browser(member)).post('/site-admin/users/reset-link', { id: admin.id }));
    expect(answer.status).toBe(403);
    expect(await kit.store.links.find(admin.id, 'reset_password')).toBeNull();
  });
});
