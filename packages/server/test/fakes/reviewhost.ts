/**
 * A fake review host: `GET /a/accounts/self` with HTTP Basic authentication answers the account (prefixed with
 * the `)]}'` line such hosts put before JSON), 401 otherwise. It records every Authorization it saw.
 */
import { json, listen, type Listening } from './http.js';

export interface FakeReviewhost extends Listening {
  readonly checks: string[];
}

export async function startFakeReviewhost(accounts: Readonly<Record<string, string>>): Promise<FakeReviewhost> {
  const checks: string[] = [];
  const listening = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://review.invalid');
    if (url.pathname !== '/a/accounts/self') return json(res, 404, {});
    const header = req.headers.authorization ?? '';
    checks.push(header);
    const [user = '', password = ''] = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
    if (!header.startsWith('Basic ') || accounts[user] === undefined || accounts[user] !== password) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('Unauthorized');
      return;
    }
    const body = `)]}'\n${JSON.stringify({ _account_id: 1000, name: user, username: user })}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  return { ...listening, checks };
}
