/**
 * The debug console at `/debug/console` (spec §1, §4): GraphiQL with its Docs panel, every asset served by
 * this server from the installed packages (no CDN).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { escapeHtml } from '../kernel/http-io.js';
import { messagePage } from '../pages/page-routes.js';
import { errorResponse, htmlResponse, pageShell } from '../kernel/respond.js';
import type { RouteRequest, RouteResponse } from '../kernel/route.js';
import type { ProxyCheck, Sessions } from '../session/sessions.js';
import { CONSOLE_ASSET_FILES, consoleInstallCommand, missingConsolePackages, resolvePackageFile } from './assets.js';

import { CONSOLE_PATH } from '../pages/console-path.js';

export { CONSOLE_PATH } from '../pages/console-path.js';

const ASSET_PREFIX = `${CONSOLE_PATH}/assets/`;

interface Asset {
  readonly file: (resolveFile: (name: string, file: string) => string | null) => string | null;
  readonly type: string;
}

// The browser assets come from graphiql, react and react-dom (gatehouse-server's dependencies, see assets.ts); on an
// installation that lost one, the page says what to reinstall instead of staying blank.
const ASSETS: ReadonlyMap<string, Asset> = new Map<string, Asset>(
  CONSOLE_ASSET_FILES.map((a) => [a.name, { file: (resolveFile) => resolveFile(a.package, a.file), type: a.type }]),
);

/**
 * The console's own script: builds the GraphiQL fetcher (same-origin, so the session cookie goes along,
 * plus the CSRF header) and renders GraphiQL. Served as a file so the page needs no inline script.
 */
const CONSOLE_SCRIPT = `(function () {
  'use strict';
  // GraphiQL keeps its tabs, history and favourites in localStorage. A token pasted in the Headers editor must not
  // stay there: headers are not persisted (shouldPersistHeaders: false), and this storage drops the headers of
  // every saved history and favourite entry before writing it.
  function withoutHeaders(text) {
    try {
      var saved = JSON.parse(text);
      Object.keys(saved).forEach(function (key) {
        if (Array.isArray(saved[key])) saved[key].forEach(function (entry) { if (entry && typeof entry === 'object') delete entry.headers; });
      });
      return JSON.stringify(saved);
    } catch (e) {
      return null;
    }
  }
  var local = null;
  try { local = window.localStorage; } catch (e) { local = null; }
  var storage = {
    getItem: function (key) { return local === null ? null : local.getItem(key); },
    setItem: function (key, value) {
      if (local === null || /:headers$/.test(key)) return;
      var kept = /:(queries|favorites)$/.test(key) ? withoutHeaders(value) : value;
      if (kept !== null) local.setItem(key, kept);
    },
    removeItem: function (key) { if (local !== null) local.removeItem(key); },
    clear: function () { if (local !== null) local.clear(); },
    get length() { return local === null ? 0 : local.length; },
  };
  // Every request asks for its query cost (X-Gatehouse-Cost: explain, spec §8); the panel under the editors shows it.
  var baseFetcher = GraphiQL.createFetcher({
    url: '/.api/graphql',
    headers: { 'X-Requested-With': 'gatehouse', 'X-Gatehouse-Cost': 'explain' },
    enableIncrementalDelivery: false,
  });
  var fetcher = function (params, options) {
    var answer = baseFetcher(params, options);
    if (params && params.operationName !== 'IntrospectionQuery' && answer && typeof answer.then === 'function') {
      answer.then(function (result) { showQueryCost(result && result.extensions ? result.extensions.cost : null); }, function () { showQueryCost(null); });
    }
    return answer;
  };
  function showQueryCost(cost) {
    var panel = document.getElementById('query-cost');
    if (panel === null) return;
    panel.textContent = '';
    var title = document.createElement('strong');
    title.textContent = 'Query cost (spec §8)';
    panel.appendChild(title);
    if (!cost || typeof cost !== 'object') {
      panel.appendChild(document.createTextNode(' · not measured for this answer'));
      return;
    }
    var table = document.createElement('table');
    var head = table.createTHead().insertRow();
    ['measure', 'value', 'limit', 'setting'].forEach(function (name) { var th = document.createElement('th'); th.scope = 'col'; th.textContent = name; head.appendChild(th); });
    var body = table.createTBody();
    ['depth', 'fieldCount', 'aliases', 'duplicateFieldCount', 'uniqueFieldCount', 'tokenCount'].forEach(function (name) {
      var m = cost[name];
      if (!m || typeof m.value !== 'number') return;
      var row = body.insertRow();
      row.dataset.measure = name;
      if (m.value > m.limit) row.className = 'exceeded';
      [name, m.value.toLocaleString('en-US'), m.limit.toLocaleString('en-US'), String(m.setting || '')].forEach(function (text) { row.insertCell().textContent = text; });
    });
    panel.appendChild(table);
    var lists = cost.fieldCount && Array.isArray(cost.fieldCount.lists) ? cost.fieldCount.lists : [];
    if (lists.length > 0) {
      var note = document.createElement('p');
      note.textContent = 'fieldCount lists: ' + lists.map(function (l) { return l.path + ' × ' + l.pageSize + ' (' + String(l.boundBy).split('_').join(' ') + ')'; }).join(', ');
      panel.appendChild(note);
    }
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: '{\\n  currentUser {\\n    username\\n  }\\n}\\n',
      defaultEditorToolsVisibility: true,
      // The Headers editor is on, so a token works from the browser (paste {"Authorization": "token …"});
      // it starts empty and is never written to the browser's storage.
      isHeadersEditorEnabled: true,
      defaultHeaders: '',
      shouldPersistHeaders: false,
      storage: storage,
    }),
  );
})();
`;

/**
 * Files kept in memory after their first read.
 */
const cache = new Map<string, Buffer>();

async function loadAsset(name: string, asset: Asset, resolveFile: (name: string, file: string) => string | null): Promise<Buffer | null> {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  const path = asset.file(resolveFile);
  if (path === null) return null;
  try {
    const bytes = await readFile(path);
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
header code { font-size: .8rem; }
#graphiql { flex: 1; min-height: 0; }
#query-cost { padding: .3rem .8rem; font-size: .8rem; border-top: 1px solid #ddd; max-height: 30vh; overflow: auto; }
#query-cost table { border-collapse: collapse; margin-top: .2rem; }
#query-cost th, #query-cost td { padding: 0 .8rem 0 0; text-align: left; }
#query-cost tr.exceeded td { color: #a00; font-weight: bold; }
#query-cost p { margin: .2rem 0 0; }
/* Spec §1: the "Docs" control is on the right side of the page. GraphiQL 3 puts its plugin sidebar (Docs,
   History) and the plugin pane on the left; both rows are reversed. GraphiQL's drag bar between the pane and
   the editors measures from the left edge, so it is switched off rather than left moving the wrong way. */
.graphiql-container { flex-direction: row-reverse; }
.graphiql-main { flex-direction: row-reverse; }
.graphiql-main > .graphiql-horizontal-drag-bar { pointer-events: none; cursor: default; }
.graphiql-main > .graphiql-plugin { border-left: 1px solid hsla(var(--color-neutral), var(--alpha-background-heavy)); }
</style>
</head>
<body>
<header>gatehouse debug console · ${who} · to use an access token, open <strong>Headers</strong> below the query and enter <code>{"Authorization": "token …"}</code></header>
<div id="graphiql">Loading…</div>
<section id="query-cost" aria-live="polite" aria-label="Query cost"><strong>Query cost (spec §8)</strong> · run a query to see its depth, field count, aliases, duplicate and unique fields beside their limits</section>
<script src="${ASSET_PREFIX}react.production.min.js"></script>
<script src="${ASSET_PREFIX}react-dom.production.min.js"></script>
<script src="${ASSET_PREFIX}graphiql.min.js"></script>
<script src="${ASSET_PREFIX}console.js"></script>
</body>
</html>
`;
}

/**
 * The console's page and asset responses.
 *
 * @param pathname - The request path (the page, or a path under the assets).
 * @param username - The signed-in user's name, or `null`.
 * @param resolveFile - How the assets' files are found in the installed packages (default: Node's resolution).
 * @returns The response value (`404` for an unknown asset).
 *
 * @example
 * ```ts
 * const response = await consoleResponse('/debug/console', user?.username ?? null);
 * ```
 */
export async function consoleResponse(
  pathname: string,
  username: string | null,
  resolveFile: (name: string, file: string) => string | null = resolvePackageFile,
): Promise<RouteResponse> {
  if (!pathname.startsWith(ASSET_PREFIX)) {
    const missing = missingConsolePackages(resolveFile);
    if (missing.length > 0) return htmlResponse(503, consoleUnavailablePage(missing));
    return htmlResponse(200, consolePage(username));
  }
  const name = pathname.slice(ASSET_PREFIX.length);
  if (name === 'console.js') return asset(Buffer.from(CONSOLE_SCRIPT, 'utf8'), 'text/javascript; charset=utf-8');
  const known = ASSETS.get(name);
  const bytes = known === undefined ? null : await loadAsset(name, known, resolveFile);
  if (known === undefined || bytes === null) return errorResponse(pathname, 404, 'not_found', 'No such asset.');
  return asset(bytes, known.type);
}

/**
 * The paths of the console's routes: the page (with and without a trailing slash) and its assets.
 *
 * @example
 * ```ts
 * CONSOLE_ROUTE_PATHS.assets; // '/debug/console/assets/*'
 * ```
 */
export const CONSOLE_ROUTE_PATHS: { readonly page: string; readonly pageSlash: string; readonly assets: string } = Object.freeze({ page: CONSOLE_PATH, pageSlash: `${CONSOLE_PATH}/`, assets: `${ASSET_PREFIX}*` });

/**
 * What the console's handlers need: who the browser is.
 *
 * @example
 * ```ts
 * const handlers = consoleHandlers({ sessions, proxy: null });
 * ```
 */
export interface ConsoleOptions {
  /** The session layer (with the proxy in front, when one is configured). */
  readonly sessions: Sessions;
  /** The authentication proxy, or `null`. */
  readonly proxy: ProxyCheck | null;
  /** The page of a person the proxy names and the sign-in decision refuses (reason, reference code); none: the message alone. */
  readonly refusalPage?: (message: string, refusal: { readonly reference: string; readonly reason: string | null }) => RouteResponse;
}

/**
 * The console's handlers: the page (it names the signed-in user) and the assets.
 *
 * @param options - Sessions and proxy.
 * @returns The handlers.
 *
 * @example
 * ```ts
 * const response = await consoleHandlers(options).page(request);
 * ```
 */
export function consoleHandlers(options: ConsoleOptions): {
  readonly page: (request: RouteRequest) => Promise<RouteResponse>;
  readonly asset: (request: RouteRequest) => Promise<RouteResponse>;
} {
  return {
    async page(request) {
      // A person the authentication proxy names but the sign-in decision refuses sees why (§5.3 http-header).
      const verdict = options.proxy !== null && request.url.pathname === CONSOLE_PATH ? await options.proxy(request) : null;
      if (verdict !== null && verdict.kind === 'denied') {
        const { refusal } = verdict;
        if (refusal !== undefined && options.refusalPage !== undefined) return options.refusalPage(verdict.message, refusal);
        return messagePage(403, 'Sign-in failed', verdict.message);
      }
      const user = verdict !== null && verdict.kind === 'user' ? verdict.user : await options.sessions.authenticate(request);
      return consoleResponse(CONSOLE_PATH, user?.username ?? null);
    },
    asset: (request) => consoleResponse(request.url.pathname, null),
  };
}

/**
 * The page served in place of the console when its browser assets are not installed: it names the packages
 * and the command, instead of a blank "Loading…" page.
 *
 * @param missing - The packages whose asset files are missing.
 * @returns The HTML page.
 *
 * @example
 * ```ts
 * consoleUnavailablePage(['graphiql']).includes('npm install graphiql'); // true
 * ```
 */
export function consoleUnavailablePage(missing: readonly string[]): string {
  const packages = missing.map((m) => `<code>${escapeHtml(m)}</code>`).join(', ');
  return pageShell({
    title: 'Debug console unavailable',
    width: 40,
    body: `<h1>The debug console is not installed</h1>
<p>It needs the package${missing.length === 1 ? '' : 's'} ${packages}, which the server cannot find: the installation of gatehouse-server is incomplete. Reinstall it where the server runs, then restart it:</p>
<pre>${escapeHtml(consoleInstallCommand())}</pre>
<p>The API at <code>/.api/graphql</code> works without them.</p>`,
  });
}

function asset(bytes: Uint8Array, type: string): RouteResponse {
  return { status: 200, headers: { 'cache-control': 'public, max-age=3600', 'content-type': type }, body: bytes };
}
