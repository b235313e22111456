/**
 * The debug console at `/debug/console` (spec §1, §4): GraphiQL with its Docs panel, every asset served by
 * this server from the installed packages (no CDN).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BASE_HEADERS, canRespond, escapeHtml, sendHtml, sendJson } from './http-io.js';

/**
 * Path of the console page.
 *
 * @example
 * ```ts
 * fetch(`${base}${CONSOLE_PATH}`);
 * ```
 */
export const CONSOLE_PATH = '/debug/console';

const ASSET_PREFIX = `${CONSOLE_PATH}/assets/`;

interface Asset {
  readonly file: () => string;
  readonly type: string;
}

// In the CommonJS build `import.meta.url` is empty; `__filename` is defined there instead.
const moduleLocation: string =
  typeof import.meta.url === 'string' && import.meta.url !== ''
    ? import.meta.url
    : typeof __filename === 'string'
      ? __filename
      : join(process.cwd(), 'index.js');
const resolvePackage = createRequire(moduleLocation);
const packageDir = (name: string): string => dirname(resolvePackage.resolve(`${name}/package.json`));

const ASSETS: ReadonlyMap<string, Asset> = new Map<string, Asset>([
  ['react.production.min.js', { file: () => join(packageDir('react'), 'umd', 'react.production.min.js'), type: 'text/javascript; charset=utf-8' }],
  [
    'react-dom.production.min.js',
    { file: () => join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), type: 'text/javascript; charset=utf-8' },
  ],
  ['graphiql.min.js', { file: () => join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript; charset=utf-8' }],
  ['graphiql.min.css', { file: () => join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css; charset=utf-8' }],
]);

/**
 * The console's own script: builds the GraphiQL fetcher (same-origin, so the session cookie goes along,
 * plus the CSRF header) and renders GraphiQL. Served as a file so the page needs no inline script.
 */
const CONSOLE_SCRIPT = `(function () {
  'use strict';
  var fetcher = GraphiQL.createFetcher({
    url: '/.api/graphql',
    headers: { 'X-Requested-With': 'gatehouse' },
    enableIncrementalDelivery: false,
  });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: '{\\n  currentUser {\\n    username\\n  }\\n}\\n',
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: false,
    }),
  );
})();
`;

/**
 * Files kept in memory after their first read.
 */
const cache = new Map<string, Buffer>();

async function loadAsset(name: string, asset: Asset): Promise<Buffer | null> {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  try {
    const bytes = await readFile(asset.file());
    cache.set(name, bytes);
    return bytes;
  } catch {
    return null;
  }
}

/**
 * The console page for a viewer.
 *
 * @param username - The signed-in user's name, or `null` for an anonymous visitor.
 * @returns The HTML page.
 *
 * @example
 * ```ts
 * consolePage('alice').includes('graphiql.min.js'); // true
 * ```
 */
export function consolePage(username: string | null): string {
  const who =
    username === null
      ? `Not signed in · <a href="/.auth/sign-in?returnTo=${encodeURIComponent(CONSOLE_PATH)}">Sign in</a>`
      : `Signed in as <strong id="viewer">${escapeHtml(username)}</strong> · <form method="post" action="/.auth/sign-out"><button type="submit">Sign out</button></form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Debug console · gatehouse</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_PREFIX}graphiql.min.css">
<style>
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
header { padding: .3rem .8rem; font-size: .85rem; border-bottom: 1px solid #ddd; }
header form { display: inline; }
#graphiql { flex: 1; min-height: 0; }
</style>
</head>
<body>
<header>gatehouse debug console · ${who}</header>
<div id="graphiql">Loading…</div>
<script src="${ASSET_PREFIX}react.production.min.js"></script>
<script src="${ASSET_PREFIX}react-dom.production.min.js"></script>
<script src="${ASSET_PREFIX}graphiql.min.js"></script>
<script src="${ASSET_PREFIX}console.js"></script>
</body>
</html>
`;
}

/**
 * Serves the console page and its assets.
 *
 * @param pathname - The request path.
 * @param method - The request method.
 * @param res - The response.
 * @param username - The signed-in user's name, or `null`.
 * @returns `true` when the path belongs to the console (a response was written), `false` otherwise.
 *
 * @example
 * ```ts
 * if (await serveConsole(url.pathname, req.method ?? 'GET', res, user?.username ?? null)) return;
 * ```
 */
export async function serveConsole(pathname: string, method: string, res: ServerResponse, username: string | null): Promise<boolean> {
  if (pathname !== CONSOLE_PATH && pathname !== `${CONSOLE_PATH}/` && !pathname.startsWith(ASSET_PREFIX)) return false;
  if (method !== 'GET' && method !== 'HEAD') {
    sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'Use GET.' } }, { allow: 'GET, HEAD' });
    return true;
  }
  if (!pathname.startsWith(ASSET_PREFIX)) {
    sendHtml(res, 200, consolePage(username));
    return true;
  }
  const name = pathname.slice(ASSET_PREFIX.length);
  if (name === 'console.js') {
    writeAsset(res, Buffer.from(CONSOLE_SCRIPT, 'utf8'), 'text/javascript; charset=utf-8', method);
    return true;
  }
  const asset = ASSETS.get(name);
  const bytes = asset === undefined ? null : await loadAsset(name, asset);
  if (asset === undefined || bytes === null) {
    sendJson(res, 404, { error: { code: 'not_found', message: 'No such asset.' } });
    return true;
  }
  writeAsset(res, bytes, asset.type, method);
  return true;
}

function writeAsset(res: ServerResponse, bytes: Buffer, type: string, method: string): void {
  if (!canRespond(res)) return;
  res.writeHead(200, {
    ...BASE_HEADERS,
    'cache-control': 'public, max-age=3600',
    'content-type': type,
    'content-length': String(bytes.length),
  });
  res.end(method === 'HEAD' ? undefined : bytes);
}
