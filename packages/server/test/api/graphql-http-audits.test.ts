import { serverAudits } from 'graphql-http';
import type { AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let s: TestServer;
let results: AuditResult[] = [];

beforeAll(async () => {
  s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
  results = await Promise.all(serverAudits({ url: `${s.url}/.api/graphql`, fetchFn: fetch }).map((audit) => audit.fn()));
});

afterAll(async () => {
  await s.close();
});

describe('graphql-http serverAudits against the running server', () => {
  it('should pass every MUST audit', () => {
    const failedMusts = results.filter((r) => r.name.startsWith('MUST') && r.status !== 'ok').map((r) => `${r.id} ${r.name}`);
    expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThan(10);
    expect(failedMusts).toStrictEqual([]);
  });

  it('should list the SHOULD and MAY audits that fail (reported, not required)', () => {
    const notOk = results
      .filter((r) => !r.name.startsWith('MUST') && r.status !== 'ok')
      .map((r) => `${r.id} ${r.name}${'reason' in r ? ` — ${r.reason}` : ''}`);
    const level = (r: AuditResult): string => r.name.split(' ')[0] ?? '';
    const counts = ['MUST', 'SHOULD', 'MAY'].map((l) => `${l} ${results.filter((r) => level(r) === l && r.status === 'ok').length}/${results.filter((r) => level(r) === l).length}`);
    expect(results.every((r) => ['MUST', 'SHOULD', 'MAY'].includes(level(r)))).toBe(true);
    console.log(`graphql-http audits: ${results.length} run, ${results.filter((r) => r.status === 'ok').length} ok (${counts.join(', ')})`);
    console.log(notOk.length === 0 ? 'every SHOULD and MAY audit passes' : `not passing:\n${notOk.join('\n')}`);
    // pinned: every audit passes but one; a regression in a SHOULD or MAY shows up here. 9ABE posts a JSON body
    // with fetch's default `text/plain;charset=UTF-8` and expects a 4xx. gatehouse reads the JSON body whatever
    // its declared type, as the service does (spec §4: "a JSON body is sent with the request"; README's own
    // `curl -d` declares application/x-www-form-urlencoded), so it answers that request: a deliberate deviation.
    expect(notOk).toStrictEqual([
      '9ABE SHOULD respond with 4xx status code if content-type is not supplied on POST requests — Response status is not between 400 and 499',
    ]);
  });
});
