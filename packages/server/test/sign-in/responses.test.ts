import { testUser } from '../fakes/app.js';
import type { SignInFlowError } from '../../src/sign-in/flow.js';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { flowErrorResponse, signInOutcomeResponse, type ProviderFlowError } from '../../src/sign-in/responses.js';
import type { ResponseCookie } from '../../src/kernel/route.js';

describe('flowErrorResponse', () => {
  it.each([
    { error: { code: 'missing_state' }, status: 400 },
    { error: { code: 'invalid_state' }, status: 400 },
    { error: { code: 'state_mismatch' }, status: 400 },
    { error: { code: 'provider_error' }, status: 400 },
    { error: { code: 'missing_code' }, status: 400 },
    { error: { code: 'response_rejected' }, status: 400 },
    { error: { code: 'upstream_failed' }, status: 502 },
    { error: { code: 'not_configured' }, status: 503 },
    { error: { code: 'bad_request' }, status: 400 },
    { error: { code: 'too_many_pending' }, status: 503 },
  ] satisfies { error: ProviderFlowError; status: number }[])('should answer $error.code with $status', ({ error, status }) => {
    const response = flowErrorResponse(error);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['retry-after']).toBe(error.code === 'too_many_pending' ? '60' : undefined);
  });
});

describe('signInOutcomeResponse', () => {
  const session: ResponseCookie = { name: 'session', value: 's', path: '/', sameSite: 'Lax', secure: true, httpOnly: true };
  const clear: ResponseCookie = { name: 'gatehouse_auth_state', value: '', path: '/', maxAgeSeconds: 0, sameSite: 'Lax', secure: true, httpOnly: true };

  it('should redirect a signed-in person to returnTo with the session cookie first, then the always-set cookies', () => {
    const response = signInOutcomeResponse(ok({ kind: 'signed_in', userId: 'u1', user: testUser('u1'), created: false, linked: false }), '/after', [session], [clear]);
    expect(response).toStrictEqual({ status: 303, headers: { location: '/after' }, body: null, cookies: [session, clear] });
  });

  it('should show a denial with 403 and set only the always-set cookies', () => {
    const response = signInOutcomeResponse(ok({ kind: 'denied', reason: 'signup_not_allowed', message: 'No & <sign-up>.' }), '/', [session], [clear]);
    expect(response.status).toBe(403);
    expect(response.body).toContain('No &amp; &lt;sign-up&gt;.');
    expect(response.cookies).toStrictEqual([clear]);
  });

  it.each<{ readonly error: SignInFlowError; readonly status: number }>([
    { error: { code: 'store_conflict', conflict: { code: 'username_taken', username: 'alice' } }, status: 409 },
    { error: { code: 'sign_in_error', error: { code: 'invalid_sign_in_input', path: 'input' } }, status: 500 },
  ])('should answer $error.code with $status', ({ error, status }) => {
    expect(signInOutcomeResponse(err(error), '/').status).toBe(status);
  });
});
