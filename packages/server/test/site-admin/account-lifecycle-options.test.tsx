/** Site configuration shows the effective values of auth.lockout and the link expiries, marking the defaults. */
import { describe, expect, it } from 'vitest';
import { callRoute, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

async function shown(configuration: unknown): Promise<string> {
  const { kit, routes, admin } = await siteAdminKit({ configuration: JSON.stringify(configuration) });
  const page = await callRoute(routes, (await kit.browser(admin)).get('/site-admin/configuration'));
  expect(page.status).toBe(200);
  return visibleText(page);
}

describe('Site configuration: Account lockout and links', () => {
  it('should show the defaults (5, 1800 s, 3600 s, 14400 s, 300 s), each marked as the default', async () => {
    const text = await shown({ 'auth.providers': [{ type: 'builtin' }] });
    expect(text).toContain('auth.lockout.failedAttemptThreshold 5 (the default)');
    expect(text).toContain('auth.lockout.lockoutPeriod 1800 s (30 min) (the default)');
    expect(text).toContain('auth.lockout.consecutivePeriod 3600 s (1 h) (the default)');
    expect(text).toContain('auth.passwordResetLinkExpiry 14400 s (4 h) (the default)');
    expect(text).toContain('auth.unlockAccountLinkExpiry 300 s (5 min) (the default)');
  });

  it('should show configured values without the mark', async () => {
    const text = await shown({ 'auth.lockout': { failedAttemptThreshold: 3, lockoutPeriod: 90 }, 'auth.unlockAccountLinkExpiry': 61 });
    expect(text).toContain('auth.lockout.failedAttemptThreshold 3 auth.lockout.lockoutPeriod 90 s auth.lockout.consecutivePeriod 3600 s (1 h) (the default)');
    expect(text).toContain('auth.unlockAccountLinkExpiry 61 s');
    expect(text).not.toContain('auth.unlockAccountLinkExpiry 61 s (the default)');
  });
});
