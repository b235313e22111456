/**
 * The router's selection (exact before prefix, `405` with `Allow`, `404`, `HEAD` as `GET`) and the one writer,
 * tested as functions: no socket.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagePage } from '../../src/pages/page-routes.js';
import { errorResponse, htmlResponse, jsonResponse, redirectResponse } from '../../src/kernel/respond.js';
import { pathMatch, route, selectRoute } from '../../src/kernel/router.js';
import type { LogEntry } from '../../src/kernel/logging.js';
import type { RouteTableEntry } from '../../src/kernel/router.js';

const ok = async (): Promise<ReturnType<typeof jsonResponse>> => jsonResponse(200, {});
const TABLE: readonly RouteTableEntry[] = [
  { methods: ['GET', 'POST'], path: '/.api/graphql', handler: ok },
  { methods: ['GET'], path: '/debug/console', handler: ok },
  { methods: ['GET'], path: '/debug/console/assets/*', handler: ok },
  { methods: ['POST'], path: '/.auth/sign-in', handler: ok },
  { methods: ['GET'], path: '/.auth/sign-in', handler: ok },
  { methods: 'any', path: '/.auth/*', stream: async () => true },
];

describe('selectRoute', () => {
  it.each([
    { ref: 'exact path, listed method', method: 'POST', path: '/.api/graphql', kind: 'route' },
    { ref: 'HEAD answered as GET', method: 'HEAD', path: '/debug/console', kind: 'route' },
    { ref: 'known path, other method', method: 'PUT', path: '/.api/graphql', kind: 'method_not_allowed' },
    { ref: 'unknown path', method: 'GET', path: '/nowhere', kind: 'not_found' },
    { ref: 'prefix', method: 'GET', path: '/debug/console/assets/console.js', kind: 'route' },
    { ref: 'not under the prefix', method: 'GET', path: '/debug/console/x', kind: 'not_found' },
    { ref: 'exact path before a prefix that also matches', method: 'DELETE', path: '/.auth/sign-in', kind: 'method_not_allowed' },
    { ref: 'a prefix entry for any method', method: 'DELETE', path: '/.auth/hostb/login', kind: 'route' },
  ])('should select $kind for $ref', ({ method, path, kind }) => {
    expect(selectRoute(TABLE, method, path).kind).toBe(kind);
  });

  it('should name every method of the path in Allow, HEAD with GET', () => {
    expect(selectRoute(TABLE, 'PUT', '/.api/graphql')).toStrictEqual({ kind: 'method_not_allowed', allow: 'GET, POST, HEAD', path: '/.api/graphql' });
    expect(selectRoute(TABLE, 'PUT', '/.auth/sign-in')).toStrictEqual({ kind: 'method_not_allowed', allow: 'POST, GET, HEAD', path: '/.auth/sign-in' });
  });

  it('should select, for every entry and each of its methods, an entry listing that method (property)', () => {
    const entries = TABLE.filter((e): e is Extract<RouteTableEntry, { readonly handler: unknown }> => 'handler' in e);
    fc.assert(
      fc.property(fc.constantFrom(...entries), fc.stringMatching(/^[a-z.]{1,8}$/), (entry, tail) => {
        const path = typeof entry.path === 'string' && entry.path.endsWith('/*') ? `${entry.path.slice(0, -1)}${tail}` : String(entry.path);
        for (const method of entry.methods) {
          const selected = selectRoute(TABLE, method, path);
          expect(selected.kind).toBe('route');
          if (selected.kind === 'route' && Array.isArray(selected.entry.methods)) expect(selected.entry.methods).toContain(method);
        }
      }),
    );
  });

  it('should match a prefix only below it and an exact path only itself', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\/[a-z/]{0,12}$/), (path) => {
        expect(pathMatch('/a/*', path) === 'prefix').toBe(path.startsWith('/a/'));
        expect(pathMatch('/a', path) === 'exact').toBe(path === '/a');
      }),
    );
  });
});

describe('response values', () => {
  it('should shape errors as the path\'s clients read them', () => {
    expect(JSON.parse(String(errorResponse('/.api/graphql', 405, 'method_not_allowed', 'Use GET.').body))).toStrictEqual({ errors: [{ message: 'Use GET.' }] });
    expect(errorResponse('/.api/graphql', 405, 'method_not_allowed', 'Use GET.').headers['vary']).toBe('Authorization');
    expect(JSON.parse(String(errorResponse('/.auth/idp/oauth/token', 405, 'method_not_allowed', 'Use POST.').body))).toStrictEqual({
      error: 'invalid_request',
      error_description: 'Use POST.',
    });
    expect(JSON.parse(String(errorResponse('/x', 404, 'not_found', 'Not found.').body))).toStrictEqual({ error: { code: 'not_found', message: 'Not found.' } });
  });

  it('should escape the message page and give pages their security headers', () => {
    const page = messagePage(403, '<t>', '<script>');
    expect(page.status).toBe(403);
    expect(String(page.body)).toContain('&lt;script&gt;');
    expect(String(page.body)).not.toContain('<script>');
    expect(htmlResponse(200, '').headers['x-frame-options']).toBe('DENY');
    expect(redirectResponse('/debug/console')).toStrictEqual({ status: 303, headers: { location: '/debug/console' }, body: null });
  });
});

describe('the catch-all over gatehouse\'s own code', () => {
  it('should log a rejecting handler as internal_error and answer 500 with a code that never blames the client', async () => {
    const logs: LogEntry[] = [];
    const failing = async (): Promise<never> => Promise.reject(new TypeError('bug'));
    const table: readonly RouteTableEntry[] = [
      { methods: ['GET'], path: '/x', handler: failing },
      { methods: ['POST'], path: '/.auth/idp/oauth/token', handler: failing },
    ];
    const server = createServer((req, res) => {
      void route(table, req, res, new URL(req.url ?? '/', 'http://127.0.0.1'), 'r1', { base: 'http://127.0.0.1', log: (e) => logs.push(e) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const plain = await fetch(`${base}/x`);
      expect(plain.status).toBe(500);
      expect(await plain.json()).toStrictEqual({ error: { code: 'internal_error', message: 'Internal server error.' } });
      const token = await fetch(`${base}/.auth/idp/oauth/token`, { method: 'POST' });
      expect(token.status).toBe(500);
      expect(await token.json()).toMatchObject({ error: 'server_error' });
      expect(logs.filter((e) => e['event'] === 'internal_error').map((e) => e['name'])).toStrictEqual(['TypeError', 'TypeError']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('declared bodies', () => {
  it('should refuse a body of another media type with 415, and hand a request that sends no body to its handler with body null', async () => {
    const seen: (string | null)[] = [];
    const form = { limit: 64, contentTypes: ['application/x-www-form-urlencoded'], decompress: false } as const;
    const table: readonly RouteTableEntry[] = [
      {
        methods: ['POST'],
        path: '/form',
        body: form,
        handler: async (request) => {
          seen.push(request.body);
          return jsonResponse(request.body === null ? 401 : 200, {});
        },
      },
    ];
    const server = createServer((req, res) => {
      void route(table, req, res, new URL(req.url ?? '/', 'http://127.0.0.1'), 'r1', { base: 'http://127.0.0.1', log: () => undefined });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const statusOf = async (init: RequestInit): Promise<number> => (await fetch(`${base}/form`, { method: 'POST', ...init })).status;
      expect(await statusOf({})).toBe(401);
      expect(await statusOf({ headers: { 'content-type': 'application/json' }, body: '{}' })).toBe(415);
      expect(await statusOf({ headers: { 'content-type': 'text/plain' }, body: '' })).toBe(415);
      expect(await statusOf({ body: 'a=1' })).toBe(415);
      expect(await statusOf({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })).toBe(200);
      expect(seen).toStrictEqual([null, 'a=1']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
