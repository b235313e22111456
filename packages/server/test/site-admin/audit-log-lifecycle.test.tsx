/**
 * The account lifecycle's audit entries on Site admin → Audit log (spec §6), as a function: each action the
 * lifecycle records (named as the code writes it, with the reason and details it writes) is offered in the action
 * filter's suggestions, is listed alone when filtered by, and reads as one row: entity, action, reason, actor and
 * subject by username (a dash when nobody acted, as for a lock or a mailed link), and its details as `key=value`.
 */
import { describe, expect, it } from 'vitest';
import { KNOWN_AUDIT_ACTIONS } from '../../src/site-admin/audit-log.js';
import type { AuditEvent } from '../../src/store/types.js';
import { callRoute, textOf, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

/** Who acted on whom: the administrator on the member, the member on itself, or nobody on the member. */
type Parties = 'admin' | 'self' | 'nobody';

/** Each lifecycle action as the server writes it: its reason and details, and who acts. */
const LIFECYCLE: readonly { readonly action: string; readonly parties: Parties; readonly reason: string | null; readonly details: Readonly<Record<string, string>> }[] = [
  { action: 'suspended', parties: 'admin', reason: null, details: { username: 'alice' } },
  { action: 'reinstated', parties: 'admin', reason: null, details: { username: 'alice' } },
  { action: 'sessions_ended', parties: 'admin', reason: null, details: { username: 'alice', sessions: '2' } },
  { action: 'tokens_revoked', parties: 'admin', reason: null, details: { username: 'alice', accessTokens: '1', oauthTokens: '0' } },
  { action: 'unlocked', parties: 'admin', reason: 'by a site administrator', details: { wasLocked: 'true' } },
  { action: 'unlocked', parties: 'self', reason: 'by the unlock link', details: { wasLocked: 'true' } },
  { action: 'password_reset_link_created', parties: 'admin', reason: 'by a site administrator', details: { emailSent: 'false' } },
  { action: 'password_reset', parties: 'self', reason: 'by a password reset link', details: { sessionsEnded: '2' } },
  { action: 'password_reset_requested', parties: 'nobody', reason: 'forgot password', details: {} },
  { action: 'first_admin_link_created', parties: 'self', reason: 'first start', details: {} },
  { action: 'first_admin_password_set', parties: 'self', reason: "by the first start's link", details: { sessionsEnded: '0' } },
  { action: 'email_added', parties: 'self', reason: null, details: { email: 'work@example.com' } },
  { action: 'email_verification_sent', parties: 'admin', reason: null, details: { email: 'work@example.com', mail: 'mail_off' } },
  { action: 'email_verified', parties: 'self', reason: null, details: { email: 'work@example.com' } },
  { action: 'primary_email_changed', parties: 'self', reason: null, details: { email: 'work@example.com' } },
  { action: 'locked', parties: 'nobody', reason: '5 failed password sign-ins', details: { lockedUntil: '2023-11-14T22:43:20.000Z' } },
  { action: 'unlock_link_mailed', parties: 'nobody', reason: null, details: {} },
];

describe('the account lifecycle on the audit log page', () => {
  it('should offer every lifecycle action in the action filter', async () => {
    const s = await siteAdminKit();
    const html = textOf(await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/audit-log')));
    for (const { action } of LIFECYCLE) {
      expect(KNOWN_AUDIT_ACTIONS, action).toContain(action);
      expect(html, action).toContain(`<option value="${action}">`);
    }
  });

  it.each(LIFECYCLE.map((row) => [`${row.action} (${row.reason ?? 'no reason'})`, row] as const))('should list %s alone and readably when filtered by', async (_name, row) => {
    const s = await siteAdminKit();
    const actor = row.parties === 'admin' ? s.admin.id : row.parties === 'self' ? s.member.id : null;
    // another lifecycle entry, which the filter must leave out
    await s.deps.audit({ entity: 'user', action: row.action === 'suspended' ? 'reinstated' : 'suspended', reason: null, actorUserId: s.admin.id, subjectUserId: s.member.id, details: {} }, s.kit.store);
    const entry: AuditEvent = { entity: 'user', action: row.action, reason: row.reason, actorUserId: actor, subjectUserId: s.member.id, details: row.details };
    await s.deps.audit(entry, s.kit.store);
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get(`/site-admin/audit-log?action=${row.action}`));
    expect(page.status).toBe(200);
    expect([...textOf(page).matchAll(/<tr id="entry-/g)]).toHaveLength(1);
    const actorName = row.parties === 'admin' ? 'root' : row.parties === 'self' ? 'alice' : '—';
    const details = Object.entries(row.details).map(([k, v]) => `${k}=${v}`);
    const expected = ['user', row.action, row.reason ?? '—', actorName, 'alice', ...(details.length === 0 ? ['—'] : details), '1'].join(' ');
    expect(visibleText(page)).toContain(expected);
  });
});
