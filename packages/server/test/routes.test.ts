/**
 * Every request gets an answer: no route holds a connection open without responding. A fast-check generated set
 * of methods and paths (every route's path, paths under them, unknown paths) runs against a real server on
 * 127.0.0.1, each request with a short timeout; an unknown path is a 404 like any other. The route table the
 * server is built with is checked against what it answers: every route in it answers, and nothing outside it does.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';
import { selectRoute } from '../src/kernel/router.js';
import type { RouteTableEntry } from '../src/kernel/router.js';
import { createSite } from '../src/site.js';
import { createMemoryStore } from '../src/store/memory/store.js';
import { startServer } from './helpers/server.js';
import type { TestServer } from './helpers/server.js';

const CONFIG = `{
  "externalURL": "http://127.0.0.1:9",
  "auth.providers": [
    { "type": "builtin", "allowSignup": true },
    { "type": "hostb", "url": "https://hostb.example.com", "clientID": "id", "clientSecret": "secret" },
    { "type": "hostcserver", "url": "https://hostc.example.com", "clientID": "id", "clientSecret": "secret" },
    { "type": "openidconnect", "issuer": "http://127.0.0.1:9", "clientID": "id", "clientSecret": "secret" },
    { "type": "saml", "entryPoint": "https://idp.example.com/sso", "idpCertificate": "MIIC" }
  ]
}`;

/** Each request must be answered within this (every route here answers in milliseconds). */
const REQUEST_TIMEOUT_MS = 3_000;

let s: TestServer;
let table: readonly RouteTableEntry[];

beforeAll(async () => {
  s = await startServer({ siteConfiguration: CONFIG, timeouts: { upstreamMs: 500 } });
  // the table the server is built with: the same function, the same configuration
  const configuration = parseSiteConfiguration(CONFIG)._unsafeUnwrap();
  const shared = { store: createMemoryStore(), randomBytes: (n: number) => new Uint8Array(n), credentialsKey: new Uint8Array(32), log: () => undefined, listeningURL: () => s.url, ready: async () => true };
  table = createSite(configuration, {}, shared).table;
});

afterAll(async () => {
  await s.close();
});

type Answer = { readonly kind: 'answered'; readonly status: number } | { readonly kind: 'hung' } | { readonly kind: 'error'; readonly message: string };

/** Sends one request with an empty body; `hung` when no response head arrives in time. */
function send(url: string, method: string, path: string): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest({ host: target.hostname, port: target.port, method, path, headers: { 'content-length': '0', connection: 'close' } }, (res) => {
      res.resume();
      resolve({ kind: 'answered', status: res.statusCode ?? 0 });
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => {
      resolve({ kind: 'hung' });
      req.destroy();
    });
    req.on('error', (e) => resolve({ kind: 'error', message: e.message }));
    req.end();
  });
}

const ROUTE_PATHS = [
  '/',
  '/.api/graphql',
  '/debug/console',
  '/debug/console/',
  '/debug/console/assets/console.js',
  '/debug/console/assets/graphiql.min.css',
  '/.auth/sign-in',
  '/.auth/sign-up',
  '/.auth/sign-out',
  '/.auth/callback',
  '/.auth/hostb/login',
  '/.auth/hostb/callback',
  '/.auth/hostcserver/login',
  '/.auth/hostcserver/callback',
  '/.auth/saml/acs',
  '/.auth/idp/oauth/authorize',
  '/.auth/idp/oauth/token',
  '/settings/security',
] as const;

const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
const path = fc.oneof(
  fc.constantFrom(...ROUTE_PATHS),
  fc.tuple(fc.constantFrom(...ROUTE_PATHS), fc.array(segment, { minLength: 1, maxLength: 3 })).map(([base, rest]) => `${base.replace(/\/$/, '')}/${rest.join('/')}`),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
);
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');

/** The concrete paths of a table entry (a prefix entry by one path under it). */
function samplePath(entry: RouteTableEntry): string {
  if (typeof entry.path === 'function') return '/';
  return entry.path.endsWith('/*') ? `${entry.path.slice(0, -1)}console.js` : entry.path;
}

describe('the route table', () => {
  it('should list every route the server answers: each table route answers, with its own methods', async () => {
    for (const entry of table) {
      if (typeof entry.path === 'function' || entry.methods === 'any') continue;
      for (const m of entry.methods) {
        const answer = await send(s.url, m, samplePath(entry));
        expect(answer.kind, `${m} ${samplePath(entry)}`).toBe('answered');
        if (answer.kind === 'answered') expect([404, 405], `${m} ${samplePath(entry)}`).not.toContain(answer.status);
      }
    }
  });

  it('should list every path the test knows as a route of the server', () => {
    for (const p of ROUTE_PATHS) expect(selectRoute(table, 'GET', p).kind, p).not.toBe('not_found');
  });

  it('should answer nothing outside the table: a path the table does not match is 404, a method it does not list 405', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        // a path the URL parser reads otherwise (`//host`) is a malformed request, answered 400 before routing
        if (!URL.canParse(p, 'http://gatehouse.invalid') || new URL(p, 'http://gatehouse.invalid').pathname !== p) return;
        const selected = selectRoute(table, m, p);
        if (selected.kind === 'route') return;
        const answer = await send(s.url, m, p);
        expect(answer, `${m} ${p}`).toStrictEqual({ kind: 'answered', status: selected.kind === 'not_found' ? 404 : 405 });
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});

describe('every route', () => {
  it('should answer 404 for a path under the console that is not an asset', async () => {
    for (const p of ['/debug/console/x', '/debug/console/nope/deeper', '/debug/consolex']) {
      expect(await send(s.url, 'GET', p)).toStrictEqual({ kind: 'answered', status: 404 });
    }
  });

  it('should answer every generated method and path (no request left hanging)', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        const answer = await send(s.url, m, p);
        expect(answer.kind, `${m} ${p}`).toBe('answered');
      }),
      { numRuns: 150, examples: [['GET', '/debug/console/anything']] },
    );
  }, 120_000);
});
