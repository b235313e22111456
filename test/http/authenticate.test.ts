/**
 * The audit entry of an unsupported `Authorization` scheme (§5.1 rule 4, §6 rule 1, §7 rule 1) under a flood:
 * the entries from one client network within a window are one entry with a count, whatever the scheme, and every
 * older entry stays reachable through `auditLog`'s `before` cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/http/server.js';
import { clientAt, type Client } from './from-address.js';
import { gql, START_TIME, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let admin: UserRecord;
let adminToken: string;
let one: Client;
let two: Client;

beforeAll(async () => {
  s = await startServer();
  admin = await s.user('admin', true);
  adminToken = (await s.token(admin)).token;
  one = clientAt('127.0.0.1');
  two = clientAt('127.0.0.2');
});

afterAll(async () => {
  one.close();
  two.close();
  await s.close();
});

const unsupported = (i: number): { url: string; method: string; path: string; headers: Record<string, string>; body: string } => ({
  url: s.url,
  method: 'POST',
  path: '/.api/graphql',
  headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`u${i}:p`).toString('base64')}` },
  body: JSON.stringify({ query: '{ currentUser { username } }' }),
});

interface ListedEntry {
  readonly entity: string;
  readonly action: string;
  readonly reason: string | null;
  readonly details: string;
  readonly count: number;
  readonly firstAt: string;
  readonly lastAt: string;
}

async function auditLog(first: number, fields = 'entity action reason details count firstAt lastAt', before?: string): Promise<ListedEntry[]> {
  const cursor = before === undefined ? '' : `, before: "${before}"`;
  const answer = await gql(s.url, `{ auditLog(first: ${first}${cursor}) { ${fields} } }`, { headers: { authorization: `token ${adminToken}` } });
  const body = answer.body as { data?: { auditLog?: ListedEntry[] } };
  return body.data?.auditLog ?? [];
}

/** Every entry, newest first, read page by page (`first` is at most 100) through the `before` cursor. */
async function wholeAuditLog(fields: string): Promise<ListedEntry[]> {
  const all: ListedEntry[] = [];
  let before: string | undefined;
  for (let page = 0; page < 100; page++) {
    const rows = (await auditLog(100, `id ${fields}`, before)) as (ListedEntry & { id: string })[];
    if (rows.length === 0) break;
    all.push(...rows.map(({ id: _id, ...rest }) => rest));
    before = rows.at(-1)?.id;
  }
  return all;
}

describe('unsupported Authorization scheme under a flood (§6 rule 1, §7 rule 1)', () => {
  it('should keep an older entry in auditLog after 1,001 unsupported-scheme requests from one client (§6 rule 1)', async () => {
    s.clock.now = START_TIME + 3_600_000;
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${adminToken}` } });
    const before = (await wholeAuditLog('entity action')).length;
    expect(before).toBeGreaterThan(0);
    const oldest = (await wholeAuditLog('entity action')).at(-1);

    const statuses = await one.flood(1_001, unsupported);
    expect(statuses.every((status) => status === 200)).toBe(true);

    const after = await wholeAuditLog('entity action');
    // every entry that was there is still listed: the flood added exactly one entry
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toStrictEqual(oldest);
  });

  it('should record the flood as one entry with its count, first and last time and the client address (§6 rule 1)', async () => {
    const [entry] = await auditLog(1);
    expect(entry).toStrictEqual({
      entity: 'auth.accessToken',
      action: 'failed',
      reason: 'invalid Authorization header',
      // a coalesced entry lists the distinct schemes it counted
      details: JSON.stringify({ scheme: 'basic', clientAddress: '127.0.0.1', schemes: 'basic' }),
      count: 1_001,
      firstAt: new Date(START_TIME + 3_600_000).toISOString(),
      lastAt: new Date(START_TIME + 3_600_000).toISOString(),
    });
  });

  it('should keep entries of another client apart, count every scheme of one client and window in one entry, and open a new entry in the next window (§6 rule 1)', async () => {
    s.clock.now = START_TIME + 7_200_000;
    await two.send(s.url, unsupported(0));
    await one.send(s.url, { ...unsupported(0), headers: { ...unsupported(0).headers, authorization: 'Negotiate abc' } });
    s.clock.now += 30_000;
    await one.send(s.url, unsupported(1));
    await one.send(s.url, unsupported(2));
    s.clock.now += 30_000; // the next 60-second window
    await one.send(s.url, unsupported(3));
    const entries = (await auditLog(3)).map((e) => [JSON.parse(e.details) as unknown, e.count, e.firstAt, e.lastAt]);
    const at = (ms: number): string => new Date(START_TIME + 7_200_000 + ms).toISOString();
    // another scheme from the same client network in the same window is counted in its entry, not a new one
    expect(entries).toStrictEqual([
      [{ scheme: 'basic', clientAddress: '127.0.0.1' }, 1, at(60_000), at(60_000)],
      [{ scheme: 'negotiate', clientAddress: '127.0.0.1', schemes: 'negotiate,basic' }, 3, at(0), at(30_000)],
      [{ scheme: 'basic', clientAddress: '127.0.0.2' }, 1, at(0), at(0)],
    ]);
  });
});
