import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCurlCommand, quoteShellArgument, unquoteShellArgument } from '../../src/cli/curl.js';

/** Text a process argument can carry: no NUL, no lone surrogate (any code point otherwise). */
const argText = fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, ''));
const hostile = fc.string({ unit: fc.constantFrom("'", '"', '\\', '$', '`', '!', '\n', ' ', '*', '?', '~', '#', ';', '&', '|', '(', ')', '{', '}', 'a', 'é', '😀') });
const anyArg = fc.oneof(argText, hostile);

/** What a real POSIX shell makes of `printf '%s\0' <words>`: the list of arguments it passes. */
function shellWords(words: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${words}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('quoteShellArgument', () => {
  it.each([
    { ref: 'POSIX XCU §2.2.3 (plain text)', input: 'abc', expected: "'abc'" },
    { ref: 'POSIX XCU §2.2.3 (empty argument)', input: '', expected: "''" },
    { ref: 'POSIX XCU §2.2.3 (single quote)', input: "it's", expected: "'it'\\''s'" },
    { ref: 'POSIX XCU §2.2.3 (no expansion inside)', input: '$(id) `id` $HOME \\n', expected: "'$(id) `id` $HOME \\n'" },
  ])('should quote $ref', ({ input, expected }) => {
    expect(quoteShellArgument(input)).toBe(expected);
  });

  test.prop([fc.string({ unit: 'binary' })])('should round-trip through unquoteShellArgument', (s) => {
    expect(unquoteShellArgument(quoteShellArgument(s))).toBe(s);
  });

  test.prop([fc.string()])('should refuse words it cannot have written', (s) => {
    const back = unquoteShellArgument(s);
    if (back !== null) expect(quoteShellArgument(back)).toBe(s);
  });

  test.prop([anyArg], { numRuns: 200 })('should reach a real sh unchanged (sh -c printf)', (s) => {
    expect(execFileSync('sh', ['-c', `printf %s ${quoteShellArgument(s)}`], { encoding: 'utf8' })).toBe(s);
  });

  it('should keep many arguments apart in one real sh command line', () => {
    const samples = fc.sample(anyArg, { numRuns: 300, seed: 42 });
    expect(shellWords(samples.map(quoteShellArgument).join(' '))).toStrictEqual(samples);
  });
});

describe('buildCurlCommand', () => {
  it('should write the documented curl command', () => {
    expect(
      buildCurlCommand({
        url: 'http://localhost:3080/.api/graphql',
        headers: [['Authorization', "token it's"], ['Content-Type', 'application/json']],
        body: '{"query":"{ a }"}',
      }),
    ).toBe(
      `curl -s --globoff -H 'Authorization: token it'\\''s' -H 'Content-Type: application/json' --data-raw '{"query":"{ a }"}' --url 'http://localhost:3080/.api/graphql'`,
    );
  });

  test.prop([anyArg, fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,20}$/), anyArg), { maxLength: 3 }), anyArg], { numRuns: 100 })(
    'should give curl exactly the headers, body and URL, whatever they hold (real sh)',
    (url, headers, body) => {
      const command = buildCurlCommand({ url, headers, body });
      expect(command.startsWith('curl ')).toBe(true);
      expect(shellWords(command.slice('curl '.length))).toStrictEqual([
        '-s',
        '--globoff',
        ...headers.flatMap(([n, v]) => ['-H', `${n}: ${v}`]),
        '--data-raw',
        body,
        '--url',
        url,
      ]);
    },
  );
});

const HAS_CURL = existsSync('/usr/bin/curl');
if (!HAS_CURL) console.warn('test/cli/curl: /usr/bin/curl is missing; the real-curl test is skipped');

describe(`buildCurlCommand run by the real curl${HAS_CURL ? '' : ' [SKIPPED: /usr/bin/curl is missing]'}`, () => {
  let url = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, x: req.headers['x-test'] ?? null, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.skipIf(!HAS_CURL).each([
    { ref: 'curl -d would read the file @/etc/hostname', path: '/p', header: 'v', body: '@/etc/hostname' },
    { ref: 'curl would glob [1-2] and {a,b} in the URL', path: '/p[1-2]{a,b}', header: 'v', body: '{}' },
    { ref: 'shell metacharacters everywhere', path: '/p', header: `it's $(id) \`id\` "q"`, body: `{"q":"it's $(id) \`id\` \\ ! é 😀"}` },
  ])('should send the body, header and URL literally: $ref', async ({ path, header, body }) => {
    const command = buildCurlCommand({ url: `${url}${path}`, headers: [['X-Test', header]], body });
    const { stdout } = await promisify(execFile)('sh', ['-c', `${command} --silent --show-error`], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
    expect(JSON.parse(stdout)).toStrictEqual({ method: 'POST', url: path, x: header, body });
  });
});
