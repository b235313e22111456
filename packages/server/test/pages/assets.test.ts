/**
 * The pages' two assets: each path carries the first 12 hex digits of its content's SHA-256 (computed here with
 * `node:crypto`, apart from the server's helper), so a changed asset gets a new path and the year-long cache holds.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ASSET_PATHS, assetRoutes } from '../../src/pages/assets.js';

const request = (path: string) => ({
  method: 'GET',
  url: new URL(path, 'http://127.0.0.1'),
  headers: {},
  headersDistinct: {},
  cookies: new Map<string, string>(),
  clientAddress: '127.0.0.1',
  requestId: 'r1',
  body: null,
});

describe('asset paths', () => {
  it.each([
    { path: '/.assets/gatehouse.css', versioned: ASSET_PATHS.stylesheet, type: 'text/css; charset=utf-8' },
    { path: '/.assets/gatehouse.js', versioned: ASSET_PATHS.script, type: 'text/javascript; charset=utf-8' },
  ])('should version $path by the SHA-256 of what it serves', async ({ path, versioned, type }) => {
    const route = assetRoutes().find((r) => r.path === path);
    if (route === undefined) throw new Error(`no route ${path}`);
    const answer = await route.handler(request(path));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(type);
    expect(typeof answer.body).toBe('string');
    const version = createHash('sha256').update(String(answer.body), 'utf8').digest('hex').slice(0, 12);
    expect(versioned).toBe(`${path}?v=${version}`);
  });
});
