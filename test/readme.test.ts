/**
 * README's configuration examples are code an administrator copies: each `jsonc` block must parse with
 * `parseSiteConfiguration`, and the example file the server starts with must too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../src/core/site-configuration/parse.js';

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const blocks = [...read('README.md').matchAll(/```jsonc\n([\s\S]*?)```/gu)].map((m, index) => ({ index, text: m[1] ?? '' }));

describe('README site configuration examples', () => {
  it('should have at least one jsonc example', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks)('should parse jsonc block $index with every provider type of §2.5', ({ text }) => {
    const parsed = parseSiteConfiguration(text);
    expect(parsed.isOk() ? null : parsed.error).toBeNull();
  });

  it('should parse examples/site-config.jsonc, the configuration of npm start', () => {
    const parsed = parseSiteConfiguration(read('packages/server/examples/site-config.jsonc'));
    expect(parsed.isOk() ? null : parsed.error).toBeNull();
  });
});

describe('README images', () => {
  const images = [...read('README.md').matchAll(/!\[[^\]]*\]\(([^)]+)\)/gu)].map((m) => m[1] ?? '');

  it('shows the two screenshots of the pages (settings → Access tokens, site admin → Users)', () => {
    expect(images).toEqual(expect.arrayContaining(['docs/images/settings-tokens.png', 'docs/images/site-admin-users.png']));
  });

  it.each(images)('%s is a PNG in the repository', (path) => {
    const bytes = readFileSync(new URL(`../${path}`, import.meta.url));
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});
