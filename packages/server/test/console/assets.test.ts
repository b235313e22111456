/**
 * The debug console's assets come from gatehouse-server's own dependencies; an installation that lost them says so
 * on the console page instead of showing a blank "Loading…" page.
 */
import { describe, expect, it } from 'vitest';
import { CONSOLE_ASSET_FILES, missingConsolePackages, resolvePackageFile } from '../../src/console/assets.js';
import { consoleResponse } from '../../src/console/console.js';

describe('missingConsolePackages', () => {
  it('should find every asset file in this installation', () => {
    expect(missingConsolePackages()).toStrictEqual([]);
    for (const a of CONSOLE_ASSET_FILES) expect(resolvePackageFile(a.package, a.file)).not.toBeNull();
  });

  it('should name each package once whose files are missing', () => {
    expect(missingConsolePackages((name, file) => (name === 'graphiql' ? null : resolvePackageFile(name, file)))).toStrictEqual(['graphiql']);
    expect(resolvePackageFile('no-such-package-gatehouse', 'x.js')).toBeNull();
  });
});

describe('the console without its build (spec §1)', () => {
  it('should answer 503 with a page naming the packages and the command, never a blank "Loading…" page', async () => {
    const page = await consoleResponse('/debug/console', null, () => null);
    expect(page.status).toBe(503);
    const html = typeof page.body === 'string' ? page.body : '';
    expect(html).not.toContain('Loading');
    expect(html).toContain('<code>react</code>, <code>react-dom</code>, <code>graphiql</code>');
    expect(html).toContain('npm install gatehouse-server');
    expect((await consoleResponse('/debug/console/assets/graphiql.min.js', null, () => null)).status).toBe(404);
  });
});

