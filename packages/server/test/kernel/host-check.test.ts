/**
 * The `Host` check (DNS rebinding): a request whose `Host` is neither `externalURL`'s host nor the address the
 * server listens on (nor `localhost` when that address is a loopback one) is refused with 421.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostCheck, decideHost } from '../../src/kernel/host-check.js';
import type { HostDecision, LocalEndpoint } from '../../src/kernel/host-check.js';
import { createGatehouseServer } from '../../src/index.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const LOOPBACK: LocalEndpoint = { address: '127.0.0.1', port: 3080, encrypted: false };
const accept: HostDecision = { kind: 'accept' };
const refuse = (reason: 'missing_host' | 'malformed_host' | 'unknown_host'): HostDecision => ({ kind: 'refuse', reason });

describe('decideHost', () => {
  it.each([
    { ref: 'the listening address', host: '127.0.0.1:3080', external: null, local: LOOPBACK, expected: accept },
    { ref: 'localhost on a loopback listener', host: 'localhost:3080', external: null, local: LOOPBACK, expected: accept },
    { ref: 'localhost in capitals', host: 'LOCALHOST:3080', external: null, local: LOOPBACK, expected: accept },
    { ref: 'a rebinding name', host: 'rebind.attacker.example:3080', external: null, local: LOOPBACK, expected: refuse('unknown_host') },
    { ref: 'the right address on another port', host: '127.0.0.1:3081', external: null, local: LOOPBACK, expected: refuse('unknown_host') },
    { ref: 'no port means 80', host: '127.0.0.1', external: null, local: LOOPBACK, expected: refuse('unknown_host') },
    { ref: 'no port on port 80', host: '127.0.0.1', external: null, local: { ...LOOPBACK, port: 80 }, expected: accept },
    { ref: 'no port on TLS port 443', host: 'localhost', external: null, local: { ...LOOPBACK, port: 443, encrypted: true }, expected: accept },
    { ref: 'IPv6 loopback', host: '[::1]:3080', external: null, local: { ...LOOPBACK, address: '::1' }, expected: accept },
    { ref: 'IPv6 written long', host: '[0:0:0:0:0:0:0:1]:3080', external: null, local: { ...LOOPBACK, address: '::1' }, expected: accept },
    { ref: 'IPv4-mapped local address', host: '127.0.0.1:3080', external: null, local: { ...LOOPBACK, address: '::ffff:127.0.0.1' }, expected: accept },
    { ref: 'localhost on a LAN address', host: 'localhost:3080', external: null, local: { ...LOOPBACK, address: '192.0.2.7' }, expected: refuse('unknown_host') },
    { ref: 'the LAN address itself', host: '192.0.2.7:3080', external: null, local: { ...LOOPBACK, address: '192.0.2.7' }, expected: accept },
    { ref: "externalURL's host", host: 'search.example.com', external: 'https://search.example.com', local: LOOPBACK, expected: accept },
    { ref: "externalURL's host with its default port", host: 'Search.Example.com:443', external: 'https://search.example.com', local: LOOPBACK, expected: accept },
    { ref: "externalURL's host on another port", host: 'search.example.com:8443', external: 'https://search.example.com', local: LOOPBACK, expected: refuse('unknown_host') },
    { ref: "externalURL's explicit port", host: 'search.example.com:8443', external: 'https://search.example.com:8443/', local: null, expected: accept },
    { ref: 'only externalURL known', host: '127.0.0.1:3080', external: 'https://search.example.com', local: null, expected: refuse('unknown_host') },
    { ref: 'nothing known: accept', host: 'anything.example', external: null, local: null, expected: accept },
    { ref: 'nothing known, no Host: accept', host: undefined, external: null, local: null, expected: accept },
    { ref: 'no Host', host: undefined, external: null, local: LOOPBACK, expected: refuse('missing_host') },
    { ref: 'userinfo in Host', host: 'localhost:3080@rebind.example', external: null, local: LOOPBACK, expected: refuse('malformed_host') },
    { ref: 'a path in Host', host: 'localhost:3080/x', external: null, local: LOOPBACK, expected: refuse('malformed_host') },
    { ref: 'port out of range', host: 'localhost:99999', external: null, local: LOOPBACK, expected: refuse('malformed_host') },
  ])('should decide $ref', ({ host, external, local, expected }) => {
    expect(decideHost(host, external, local)).toStrictEqual(expected);
  });

  it('should never throw and accept no name but the known ones', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.constantFrom('https://search.example.com', 'http://a.example:8080/x'), { nil: null }), (host, external) => {
        const decision = decideHost(host, external, LOOPBACK);
        if (decision.kind === 'accept') {
          const name = host.toLowerCase();
          const externalHost = external === null ? null : new URL(external).host;
          expect(name.startsWith('127.0.0.1:') || name.startsWith('localhost:') || externalHost !== null).toBe(true);
        }
      }),
    );
  });
});

/** A request with a chosen Host header (fetch does not let a caller set it). */
function withHost(
  target: { readonly url: string } | { readonly socketPath: string },
  host: string,
  path = '/.auth/sign-in',
): Promise<{ status: number; body: unknown }> {
  const where = 'url' in target ? (() => { const u = new URL(target.url); return { host: u.hostname, port: u.port }; })() : { socketPath: target.socketPath };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ ...where, method: 'GET', path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describe('the server', () => {
  let s: TestServer;
  let port = '';

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "externalURL": "https://search.example.com", "auth.providers": [{ "type": "builtin" }] }' });
    port = new URL(s.url).port;
  });

  afterAll(async () => {
    await s.close();
  });

  it('should refuse a request naming another host with 421 and a JSON error', async () => {
    const answer = await withHost(s, `rebind.attacker.example:${port}`);
    expect(answer).toStrictEqual({
      status: 421,
      body: {
        error: {
          code: 'misdirected_request',
          message: `This server does not answer for the host "rebind.attacker.example:${port}" (a DNS rebinding guard). Use its externalURL, or the address it listens on.`,
        },
      },
    });
  });

  it('should refuse it on the API too, in the GraphQL error shape', async () => {
    const answer = await withHost(s, 'rebind.attacker.example', '/.api/graphql?query=%7B__typename%7D');
    expect(answer.status).toBe(421);
    expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'MISDIRECTED_REQUEST' } }] });
  });

  it.each([
    { ref: 'the listening address', host: () => `127.0.0.1:${port}` },
    { ref: 'localhost on the loopback listener', host: () => `localhost:${port}` },
    { ref: "externalURL's host", host: () => 'search.example.com' },
  ])('should answer a request naming $ref', async ({ host }) => {
    expect((await withHost(s, host())).status).toBe(200);
  });
});

describe('the listener without listen()', () => {
  let dir = '';
  const servers: Server[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-host-'));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(siteConfiguration: string, where: { readonly socketPath: string } | 'loopback'): Promise<{ readonly url: string } | { readonly socketPath: string }> {
    const gatehouse = createGatehouseServer({ siteConfiguration, log: () => {} });
    const server = createServer(gatehouse.listener);
    servers.push(server);
    if (where === 'loopback') {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` };
    }
    await new Promise<void>((resolve) => server.listen(where.socketPath, resolve));
    return where;
  }

  it("should check the address the embedder's server listens on", async () => {
    const target = await serve('{}', 'loopback');
    const port = 'url' in target ? new URL(target.url).port : '';
    expect((await withHost(target, `127.0.0.1:${port}`, '/nope')).status).toBe(404);
    expect((await withHost(target, `rebind.attacker.example:${port}`, '/nope')).status).toBe(421);
  });

  it('should accept any Host when neither externalURL nor the address is known (a Unix socket)', async () => {
    const target = await serve('{}', { socketPath: join(dir, 'a.sock') });
    expect((await withHost(target, 'anything.example', '/nope')).status).toBe(404);
  });

  it("should check externalURL's host when only it is known", async () => {
    const target = await serve('{ "externalURL": "https://search.example.com" }', { socketPath: join(dir, 'b.sock') });
    expect((await withHost(target, 'search.example.com', '/nope')).status).toBe(404);
    expect((await withHost(target, 'anything.example', '/nope')).status).toBe(421);
  });
});

describe('createHostCheck (the per-server check with its targets worked out once)', () => {
  const hosts = fc.constantFrom(
    undefined,
    '',
    '127.0.0.1:3080',
    '127.0.0.1',
    '127.0.0.1:80',
    'localhost:3080',
    'LOCALHOST:3080',
    'localhost',
    '[::1]:3080',
    '[0:0::1]:3080',
    '::1:3080',
    '10.0.0.5:3080',
    'search.example.com',
    'search.example.com:443',
    'Search.Example.COM',
    'search.example.com:8443',
    'rebind.example:3080',
    'a b',
    '127.0.0.1:99999',
  );
  const externals = fc.constantFrom(null, 'https://search.example.com', 'http://search.example.com:8443/', 'not a url');
  const locals = fc.constantFrom<LocalEndpoint | null>(
    null,
    { address: '127.0.0.1', port: 3080, encrypted: false },
    { address: '::1', port: 3080, encrypted: false },
    { address: '::ffff:127.0.0.1', port: 3080, encrypted: false },
    { address: '10.0.0.5', port: 3080, encrypted: true },
    { address: '127.0.0.1', port: 80, encrypted: false },
  );

  it('should decide every request as decideHost does, whatever came before (model-based)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hosts, externals, locals), { minLength: 1, maxLength: 30 }), (requests) => {
        const check = createHostCheck();
        for (const [host, external, local] of requests) expect(check(host, external, local)).toStrictEqual(decideHost(host, external, local));
      }),
      { numRuns: 300 },
    );
  });
});
