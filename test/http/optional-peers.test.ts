/**
 * The optional peers are optional: each is loaded only when the configuration needs it, a missing one is a
 * start-time error naming the package, and a missing console build is a page that says what to install. A
 * missing package is simulated twice: by the checker's injected loader, and in a real Node process whose module
 * resolution refuses `openid-client` and `@node-saml/node-saml` (a resolve hook registered before the adapter
 * loads), as on a host that never installed them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../src/core/site-configuration.js';
import { consoleResponse } from '../../src/http/console.js';
import { checkOptionalPeers, missingConsolePackages, resolvePackageFile } from '../../src/http/optional-peers.js';

const run = promisify(execFile);

const configuration = (providers: string) =>
  parseSiteConfiguration(`{ "externalURL": "https://gatehouse.example", "auth.providers": [${providers}] }`)._unsafeUnwrap();
const OIDC = '{ "type": "openidconnect", "issuer": "https://id.example.com", "clientID": "id", "clientSecret": "s" }';
const SAML = '{ "type": "saml", "entryPoint": "https://idp.example.com/sso/saml", "idpCertificate": "MIIC" }';
const BUILTIN = '{ "type": "builtin", "allowSignup": true }';

/** A loader that refuses some packages, as Node does when they are not installed, and records every call. */
function loaderWithout(missing: readonly string[]): { load: (name: string) => Promise<unknown>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    load: (name) => {
      calls.push(name);
      return missing.includes(name)
        ? Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }))
        : import(name);
    },
  };
}

describe('checkOptionalPeers', () => {
  it('should name openid-client and @node-saml/node-saml, with the command to install them, when the providers need them', async () => {
    const loader = loaderWithout(['openid-client', '@node-saml/node-saml']);
    const problems = await checkOptionalPeers(configuration(`${OIDC}, ${SAML}`), { load: loader.load });
    expect(problems).toStrictEqual([
      {
        code: 'missing_peer',
        package: 'openid-client',
        neededFor: 'openidconnect',
        fatal: true,
        message: 'openid-client is not installed, and the site configuration has an openidconnect provider: npm install openid-client@^6.8.9',
      },
      {
        code: 'missing_peer',
        package: '@node-saml/node-saml',
        neededFor: 'saml',
        fatal: true,
        message: '@node-saml/node-saml is not installed, and the site configuration has a saml provider: npm install @node-saml/node-saml@^5.1.0',
      },
    ]);
  });

  it('should not load a provider package the configuration does not need, and find nothing missing here', async () => {
    const loader = loaderWithout(['openid-client', '@node-saml/node-saml']);
    expect(await checkOptionalPeers(configuration(BUILTIN), { load: loader.load })).toStrictEqual([]);
    expect(loader.calls).toStrictEqual([]);
    // this checkout has every peer installed
    expect(await checkOptionalPeers(configuration(`${OIDC}, ${SAML}`))).toStrictEqual([]);
  });

  it("should report the console's missing build as a warning naming the package, not a fatal error", async () => {
    const withoutGraphiql = (name: string, file: string): string | null => (name === 'graphiql' ? null : resolvePackageFile(name, file));
    const problems = await checkOptionalPeers(configuration(BUILTIN), { resolveFile: withoutGraphiql });
    expect(problems.map((p) => [p.package, p.neededFor, p.fatal])).toStrictEqual([['graphiql', 'console', false]]);
    expect(problems[0]?.message).toContain('npm install graphiql@^3.8.3 react@^18.3.1 react-dom@^18.3.1');
    // React 19 has no UMD build: react installed without umd/ counts as missing
    const react19 = (name: string, file: string): string | null => (file.startsWith('umd/') ? null : resolvePackageFile(name, file));
    expect(missingConsolePackages(react19)).toStrictEqual(['react', 'react-dom']);
    expect(missingConsolePackages()).toStrictEqual([]);
  });
});

describe('the console without its build (spec §1)', () => {
  it('should answer 503 with a page naming the packages and the command, never a blank "Loading…" page', async () => {
    const page = await consoleResponse('/debug/console', null, () => null);
    expect(page.status).toBe(503);
    const html = typeof page.body === 'string' ? page.body : '';
    expect(html).not.toContain('Loading');
    expect(html).toContain('<code>react</code>, <code>react-dom</code>, <code>graphiql</code>');
    expect(html).toContain('npm install graphiql@^3.8.3 react@^18.3.1 react-dom@^18.3.1');
    expect((await consoleResponse('/debug/console/assets/graphiql.min.js', null, () => null)).status).toBe(404);
  });
});

describe('a host without openid-client and @node-saml/node-saml (a real Node process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-peers-'));
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, next) {
  if (specifier === 'openid-client' || specifier.startsWith('@node-saml/')) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const node = (args: readonly string[]) =>
    run(process.execPath, ['--import', 'tsx', '--import', register, ...args], { timeout: 60_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
    );

  it('should import gatehouse/http, serve the API and log the missing package at start', async () => {
    const script = join(dir, 'serve.mts');
    writeFileSync(
      script,
      `import { createGatehouseServer } from ${JSON.stringify(pathToFileURL(join(process.cwd(), 'src/http/server.ts')).href)};
const logs = [];
const gatehouse = createGatehouseServer({ siteConfiguration: ${JSON.stringify(`{ "externalURL": "https://gatehouse.example", "auth.providers": [${BUILTIN}, ${OIDC}] }`)}, log: (e) => logs.push(e) });
const { url } = await gatehouse.listen(0);
const res = await fetch(url + '/.api/graphql', { method: 'POST', body: '{"query":"{ __typename }"}' });
await new Promise((r) => setTimeout(r, 200));
console.log(JSON.stringify({ status: res.status, body: await res.json(), missing: logs.filter((e) => e.event === 'missing_peer') }));
await gatehouse.close();
`,
    );
    const result = await node([script]);
    expect(result.stderr).not.toContain('Error');
    const out = JSON.parse(result.stdout) as { status: number; body: unknown; missing: { package: string; level: string }[] };
    expect(out.status).toBe(200);
    expect(out.body).toStrictEqual({ data: { __typename: 'Query' } });
    expect(out.missing.map((m) => [m.package, m.level])).toStrictEqual([['openid-client', 'error']]);
  });

  it('should refuse to start (exit 2) with a configuration that needs them, naming each package to install', async () => {
    const config = join(dir, 'site.jsonc');
    writeFileSync(config, `{ "externalURL": "https://gatehouse.example", "auth.providers": [${BUILTIN}, ${OIDC}, ${SAML}] }`);
    const result = await node(['src/http/main.ts', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('gatehouse: openid-client is not installed, and the site configuration has an openidconnect provider: npm install openid-client@^6.8.9');
    expect(result.stderr).toContain('gatehouse: @node-saml/node-saml is not installed, and the site configuration has a saml provider: npm install @node-saml/node-saml@^5.1.0');
    expect(result.stdout).not.toContain('Administrator access token');
  });
});
