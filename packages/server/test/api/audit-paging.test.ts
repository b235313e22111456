/**
 * The audit log under an anonymous flood of unsupported `Authorization` schemes (§6 rule 1, §7 rule 1): every kept
 * entry stays reachable through `auditLog`'s `before` cursor and its `entity`/`action`/`actorUserId` filters; all
 * the unsupported schemes of one client network in one window are one entry; and past
 * `auditCoalesceMaxNetworks` networks in a window, further networks share one `other-networks` entry.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { gql, startServer, type TestServer } from '../helpers/server.js';

/** The 16 schemes the audit names, and one it reads as `other`. */
const SCHEMES = [
  'Basic', 'Concealed', 'Digest', 'DPoP', 'GNAP', 'HOBA', 'Mutual', 'Negotiate', 'OAuth', 'PrivateToken',
  'SCRAM-SHA-1', 'SCRAM-SHA-256', 'vapid', 'NTLM', 'AWS4-HMAC-SHA256', 'Zzz',
];

/** One anonymous GraphQL request with `authorization`, sent from `localAddress` (a loopback address). */
function hit(s: TestServer, authorization: string, localAddress = '127.0.0.1'): Promise<number> {
  const target = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path: '/.api/graphql', method: 'POST', localAddress, headers: { authorization, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end('{"query":"{ currentUser { username } }"}');
  });
}

interface Row {
  readonly id: string;
  readonly entity: string;
  readonly action: string;
  readonly count: number;
  readonly details: string;
}

const ROW = 'id entity action count details';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function adminSetup(options: Parameters<typeof startServer>[0] = {}): Promise<{ server: TestServer; headers: Record<string, string>; adminId: string }> {
  const server = await startServer(options);
  s = server;
  const admin = await server.user('root', true);
  // creating the token is audited (auth.accessToken / created): the entry the flood must not hide
  const { token } = await server.token(admin);
  return { server, headers: { authorization: `token ${token}` }, adminId: admin.id };
}

async function auditLog(server: TestServer, headers: Record<string, string>, args: string): Promise<readonly Row[]> {
  const answer = await gql(server.url, `{ auditLog(${args}) { ${ROW} } }`, { headers });
  expect(answer.body).not.toHaveProperty('errors');
  return (answer.body as { data: { auditLog: Row[] } }).data.auditLog;
}

describe('auditLog under an unsupported-scheme flood (§6 rule 1, §7 rule 1)', () => {
  it('should keep an older entry reachable through the before cursor and the entity/action filters after a flood (§6 rule 1)', async () => {
    const { server, headers, adminId } = await adminSetup();
    // 120 windows of every scheme from one address: at least 120 entries after the token's, more than one page
    let sent = 0;
    for (let window = 0; window < 120; window++) {
      server.clock.now += 60_000;
      for (const scheme of window < 7 ? SCHEMES : SCHEMES.slice(window % SCHEMES.length, (window % SCHEMES.length) + 1)) {
        expect(await hit(server, `${scheme} abc`)).toBe(200);
        sent++;
      }
    }

    // paging with the last id of each page reaches every entry once, newest first, down to the token's
    const seen: Row[] = [];
    let before: string | null = null;
    for (let page = 0; page < 20; page++) {
      const rows: readonly Row[] = await auditLog(server, headers, `first: 50${before === null ? '' : `, before: "${before}"`}`);
      if (rows.length === 0) break;
      seen.push(...rows);
      before = rows[rows.length - 1]?.id ?? null;
    }
    const ids = seen.map((r) => Number(r.id));
    expect(ids).toStrictEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.some((r) => r.entity === 'auth.accessToken' && r.action === 'created')).toBe(true);
    const failures = seen.filter((r) => r.action === 'failed');
    expect(failures.reduce((sum, r) => sum + r.count, 0)).toBe(sent);

    // the filters find it at once, whatever the flood
    const created = await auditLog(server, headers, 'first: 1, entity: "auth.accessToken", action: "created"');
    expect(created.map((r) => [r.entity, r.action])).toStrictEqual([['auth.accessToken', 'created']]);
    const byActor = await auditLog(server, headers, `first: 5, actorUserId: "${adminId}"`);
    expect(byActor.map((r) => r.action)).toStrictEqual(['created']);
    const flood = await auditLog(server, headers, 'first: 3, action: "failed"');
    expect(flood.map((r) => r.action)).toStrictEqual(['failed', 'failed', 'failed']);
  });

  it('should refuse a before cursor that is not an entry id', async () => {
    const { server, headers } = await adminSetup();
    const answer = await gql(server.url, '{ auditLog(before: "abc") { id } }', { headers });
    expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
  });

  it('should record all the unsupported schemes of one client network in one window as one entry listing them (§6 rule 1)', async () => {
    const { server, headers } = await adminSetup();
    for (const scheme of SCHEMES) expect(await hit(server, `${scheme} abc`)).toBe(200);
    const rows = await auditLog(server, headers, 'first: 100, action: "failed"');
    expect(rows.length).toBe(1);
    expect(rows[0]?.count).toBe(SCHEMES.length);
    const details = JSON.parse(rows[0]?.details ?? '{}') as Record<string, string>;
    expect(details['scheme']).toBe('basic');
    expect(details['clientAddress']).toBe('127.0.0.1');
    expect(details['schemes']?.split(',')).toStrictEqual(SCHEMES.map((n) => (n === 'Zzz' ? 'other' : n.toLowerCase())));
  });

  it('should fold networks past auditCoalesceMaxNetworks in a window into one other-networks entry with an exact count (§6 rule 1)', async () => {
    const { server, headers } = await adminSetup({ auditCoalesceMaxNetworks: 3 });
    // 10 loopback addresses (10 client networks), 2 requests each, in one window
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i <= 10; i++) expect(await hit(server, 'Basic YTpi', `127.0.0.${i}`)).toBe(200);
    }
    const rows = await auditLog(server, headers, 'first: 100, action: "failed"');
    const byClient = Object.fromEntries(rows.map((r) => [(JSON.parse(r.details) as Record<string, string>)['clientAddress'], r.count]));
    expect(byClient).toStrictEqual({ '127.0.0.1': 2, '127.0.0.2': 2, '127.0.0.3': 2, 'other-networks': 14 });
    // the next window starts afresh
    server.clock.now += 60_000;
    expect(await hit(server, 'Basic YTpi', '127.0.0.9')).toBe(200);
    const [newest] = await auditLog(server, headers, 'first: 1, action: "failed"');
    expect(JSON.parse(newest?.details ?? '{}')).toMatchObject({ clientAddress: '127.0.0.9' });
  });

  it('should refuse an auditCoalesceMaxNetworks that is not a positive integer', async () => {
    await expect(startServer({ auditCoalesceMaxNetworks: 0 })).rejects.toThrow(/auditCoalesceMaxNetworks/u);
  });
});
