import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { expandConfigPath, parseConfigFile, resolveConnection, resolveHeaders, resolveProxy } from '../../src/cli/config.js';

describe('parseConfigFile', () => {
  it.each([
    { ref: 'spec §1 (config file)', text: '{"endpoint": "http://h", "accessToken": "t"}', expected: ok({ endpoint: 'http://h', accessToken: 't' }) },
    { ref: 'other keys ignored', text: '{"endpoint": "http://h", "other": {}}', expected: ok({ endpoint: 'http://h' }) },
    { ref: 'src-cli (additionalHeaders, proxy)', text: '{"additionalHeaders": {"X-A": "1"}, "proxy": "http://p:1"}', expected: ok({ additionalHeaders: { 'X-A': '1' }, proxy: 'http://p:1' }) },
    { ref: 'src-cli (additionalHeaders null)', text: '{"additionalHeaders": null}', expected: ok({}) },
    { ref: 'additionalHeaders of strings', text: '{"additionalHeaders": {"X-A": 1}}', expected: err({ code: 'invalid_config_field', field: 'additionalHeaders' }) },
    { ref: 'additionalHeaders an object', text: '{"additionalHeaders": ["X-A: 1"]}', expected: err({ code: 'invalid_config_field', field: 'additionalHeaders' }) },
    { ref: 'proxy a string', text: '{"proxy": 1}', expected: err({ code: 'invalid_config_field', field: 'proxy' }) },
    { ref: 'config (JSON)', text: '{endpoint: 1}', expected: err({ code: 'invalid_config_json' }) },
    { ref: 'config (object)', text: '[]', expected: err({ code: 'invalid_config_field', field: 'file' }) },
    { ref: 'config (string endpoint)', text: '{"endpoint": 1}', expected: err({ code: 'invalid_config_field', field: 'endpoint' }) },
    { ref: 'config (string token)', text: '{"accessToken": null}', expected: err({ code: 'invalid_config_field', field: 'accessToken' }) },
  ])('should read $ref', ({ text, expected }) => {
    expect(parseConfigFile(text)).toStrictEqual(expected);
  });
  test.prop([fc.string()])('should never throw', (text) => {
    expect(() => parseConfigFile(text)).not.toThrow();
  });
});

describe('resolveConnection', () => {
  const file = { endpoint: 'http://file.example', accessToken: 'file-token' };
  it.each([
    { ref: 'spec §1 (from the file)', env: {}, expected: ok({ endpoint: 'http://file.example', graphqlUrl: 'http://file.example/.api/graphql', accessToken: 'file-token' }) },
    { ref: 'config (environment wins)', env: { SRC_ENDPOINT: 'https://env.example/', SRC_ACCESS_TOKEN: 'env-token' }, expected: ok({ endpoint: 'https://env.example', graphqlUrl: 'https://env.example/.api/graphql', accessToken: 'env-token' }) },
    { ref: 'config (setting by setting)', env: { SRC_ACCESS_TOKEN: 'env-token' }, expected: ok({ endpoint: 'http://file.example', graphqlUrl: 'http://file.example/.api/graphql', accessToken: 'env-token' }) },
    { ref: 'config (empty means unset)', env: { SRC_ENDPOINT: '', SRC_ACCESS_TOKEN: '' }, expected: ok({ endpoint: 'http://file.example', graphqlUrl: 'http://file.example/.api/graphql', accessToken: 'file-token' }) },
    { ref: 'spec §9 rule 2 (path under a base path)', env: { SRC_ENDPOINT: 'http://h/sub//' }, expected: ok({ endpoint: 'http://h/sub', graphqlUrl: 'http://h/sub/.api/graphql', accessToken: 'file-token' }) },
    { ref: 'config (http(s) only)', env: { SRC_ENDPOINT: 'ftp://h' }, expected: err({ code: 'invalid_endpoint', endpoint: 'ftp://h' }) },
    { ref: 'config (no query)', env: { SRC_ENDPOINT: 'http://h/?x=1' }, expected: err({ code: 'invalid_endpoint', endpoint: 'http://h/?x=1' }) },
    { ref: 'config (no credentials in the URL)', env: { SRC_ENDPOINT: 'http://u:p@h' }, expected: err({ code: 'invalid_endpoint', endpoint: 'http://u:p@h' }) },
    { ref: 'config (a URL)', env: { SRC_ENDPOINT: 'localhost:3080' }, expected: err({ code: 'invalid_endpoint', endpoint: 'localhost:3080' }) },
  ])('should resolve $ref', ({ env, expected }) => {
    expect(resolveConnection(env, file)).toStrictEqual(expected);
  });
  it('should need an endpoint (§1)', () => {
    expect(resolveConnection({}, {})).toStrictEqual(err({ code: 'missing_endpoint' }));
    expect(resolveConnection({}, { accessToken: 't' })).toStrictEqual(err({ code: 'missing_endpoint' }));
  });
  it('should send no token when none is configured', () => {
    expect(resolveConnection({ SRC_ENDPOINT: 'http://h' }, {})._unsafeUnwrap().accessToken).toBeNull();
  });
  test.prop([fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }), fc.string({ minLength: 1 })])(
    'should let a non-empty SRC_ACCESS_TOKEN win over any file token',
    (fileToken, fileEndpointSuffix, envToken) => {
      const result = resolveConnection(
        { SRC_ENDPOINT: 'http://h', SRC_ACCESS_TOKEN: envToken },
        { ...(fileToken === undefined ? {} : { accessToken: fileToken }), ...(fileEndpointSuffix === undefined ? {} : { endpoint: `http://f${fileEndpointSuffix}` }) },
      );
      expect(result.map((c) => c.accessToken)).toStrictEqual(ok(envToken));
    },
  );
});

describe('resolveConnection with -endpoint', () => {
  it('should let -endpoint win over SRC_ENDPOINT and the file, an empty flag counting as unset', () => {
    const file = { endpoint: 'http://file.example' };
    expect(resolveConnection({ SRC_ENDPOINT: 'http://env.example' }, file, 'http://flag.example/')._unsafeUnwrap().endpoint).toBe('http://flag.example');
    expect(resolveConnection({ SRC_ENDPOINT: 'http://env.example' }, file, '')._unsafeUnwrap().endpoint).toBe('http://env.example');
    expect(resolveConnection({}, {}, 'nope')).toStrictEqual(err({ code: 'invalid_endpoint', endpoint: 'nope' }));
  });
});

describe('expandConfigPath', () => {
  it.each([
    { ref: 'src-cli (~/)', path: '~/src-config.json', expected: '/home/me/src-config.json' },
    { ref: 'src-cli ($HOME)', path: '$HOME/cfg.json', expected: '/env/home/cfg.json' },
    { ref: 'src-cli (${NAME})', path: '${HOME}/${WHICH}.json', expected: '/env/home/prod.json' },
    { ref: 'src-cli (unset variable is empty)', path: '/etc/$NOPE/x.json', expected: '/etc//x.json' },
    { ref: 'a ~ elsewhere stays', path: '/a/~/b', expected: '/a/~/b' },
    { ref: 'plain path', path: '/etc/x.json', expected: '/etc/x.json' },
  ])('should expand $ref', ({ path, expected }) => {
    expect(expandConfigPath(path, { HOME: '/env/home', WHICH: 'prod' }, '/home/me')).toBe(expected);
  });
});

describe('resolveHeaders', () => {
  // The cases of src-cli's own parser test (cmd/src/headers_test.go), as environments.
  it.each([
    { env: {}, expected: {} },
    { env: { AUTHORIZATION: 'foo,bar,baz' }, expected: {} },
    { env: { SRC_HEADER_AUTHORIZATION: 'foo,bar,baz' }, expected: { authorization: 'foo,bar,baz' } },
    { env: { SRC_HEADER_A: 'foo', SRC_HEADER_B: 'bar', SRC_HEADER_C: 'baz' }, expected: { a: 'foo', b: 'bar', c: 'baz' } },
    { env: { SRC_HEADER_A: undefined, SRC_HEADER_B: '', SRC_HEADER_: 'baz' }, expected: {} },
    { env: { 'SRC_HEADER_X-Dbx-Auth-Token': 'foo' }, expected: { 'x-dbx-auth-token': 'foo' } },
    { env: { SRC_HEADERS: 'foo:bar\nbar:baz\nAUTHORIZATION:Bearer somerandomstring' }, expected: { foo: 'bar', bar: 'baz', authorization: 'Bearer somerandomstring' } },
    { env: { SRC_HEADERS: '"foo:bar\nbar:baz\nfoo-bar:baz-bar"' }, expected: { foo: 'bar', bar: 'baz', 'foo-bar': 'baz-bar' } },
    { env: { SRC_HEADERS: 'foo:bar\\nbar:baz' }, expected: { foo: 'bar', bar: 'baz' } },
    { env: { SRC_HEADERS: 'foo:bar\nbar:baz\n foo-bar    :   baz-bar\nb: bar', SRC_HEADER_A: 'foo' }, expected: { foo: 'bar', bar: 'baz', 'foo-bar': 'baz-bar', b: 'bar', a: 'foo' } },
    { env: { SRC_HEADERS: 'no colon\nempty:\nx:1,y:2' }, expected: { x: '1,y:2' } },
  ])('should read the environment as src-cli does: $env', ({ env, expected }) => {
    expect(resolveHeaders(env, {})).toStrictEqual(ok(expected));
  });

  it('should let the environment win over additionalHeaders, names compared without case', () => {
    expect(resolveHeaders({ SRC_HEADER_X_TEAM: 'env' }, { additionalHeaders: { 'X_Team': 'file', 'X-Other': 'o' } })).toStrictEqual(
      ok({ x_team: 'env', 'x-other': 'o' }),
    );
  });

  it.each([
    { env: { 'SRC_HEADER_BAD NAME': 'x' }, name: 'bad name' },
    { env: { SRC_HEADERS: 'x-a: one\rtwo' }, name: 'x-a' },
    { env: {}, file: { additionalHeaders: { 'x-b': 'a\u0000b' } }, name: 'x-b' },
  ])('should refuse a header HTTP cannot carry: $name', ({ env, file, name }) => {
    expect(resolveHeaders(env, file ?? {})).toStrictEqual(err({ code: 'invalid_header', name }));
  });

  test.prop([fc.dictionary(fc.string(), fc.option(fc.string(), { nil: undefined }))])('should never throw', (env) => {
    expect(() => resolveHeaders(env, {})).not.toThrow();
  });
});

describe('resolveProxy', () => {
  const https = new URL('https://sg.example.com/.api/graphql');
  const http = new URL('http://sg.example.com:8080/.api/graphql');
  const loopback = new URL('http://127.0.0.1:3080/.api/graphql');
  it.each([
    { ref: 'nothing set', env: {}, file: {}, target: https, expected: ok({ kind: 'direct' }) },
    { ref: 'SRC_PROXY for every target, loopback too', env: { SRC_PROXY: 'http://p:3128' }, file: {}, target: loopback, expected: ok({ kind: 'http_proxy', proxy: 'http://p:3128', source: 'SRC_PROXY' }) },
    { ref: 'SRC_PROXY over the file', env: { SRC_PROXY: 'https://u:pw@p:3128' }, file: { proxy: 'http://f:1' }, target: https, expected: ok({ kind: 'http_proxy', proxy: 'https://u:pw@p:3128', source: 'SRC_PROXY' }) },
    { ref: 'the file', env: {}, file: { proxy: 'http://f:1' }, target: https, expected: ok({ kind: 'http_proxy', proxy: 'http://f:1', source: 'config file "proxy"' }) },
    { ref: 'SRC_PROXY over HTTPS_PROXY', env: { SRC_PROXY: 'http://a:1', HTTPS_PROXY: 'http://b:1' }, file: {}, target: https, expected: ok({ kind: 'http_proxy', proxy: 'http://a:1', source: 'SRC_PROXY' }) },
    { ref: 'a Unix socket (unix://)', env: { SRC_PROXY: 'unix:///run/p.sock' }, file: {}, target: https, expected: ok({ kind: 'unix_socket', path: '/run/p.sock', source: 'SRC_PROXY' }) },
    { ref: 'a Unix socket (~/)', env: { SRC_PROXY: '~/p.sock' }, file: {}, target: https, expected: ok({ kind: 'unix_socket', path: '/home/me/p.sock', source: 'SRC_PROXY' }) },
    { ref: 'SOCKS is refused', env: { SRC_PROXY: 'socks5://p:1080' }, file: {}, target: https, expected: err({ code: 'invalid_proxy', proxy: 'socks5://p:1080' }) },
    { ref: 'a relative path is refused', env: { SRC_PROXY: 'p.sock' }, file: {}, target: https, expected: err({ code: 'invalid_proxy', proxy: 'p.sock' }) },
    { ref: 'HTTPS_PROXY for https', env: { HTTPS_PROXY: 'p:3128', HTTP_PROXY: 'http://q:1' }, file: {}, target: https, expected: ok({ kind: 'http_proxy', proxy: 'http://p:3128', source: 'HTTPS_PROXY' }) },
    { ref: 'https_proxy lowercase', env: { https_proxy: 'http://p:3128' }, file: {}, target: https, expected: ok({ kind: 'http_proxy', proxy: 'http://p:3128', source: 'https_proxy' }) },
    { ref: 'HTTP_PROXY for http', env: { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://q:1' }, file: {}, target: http, expected: ok({ kind: 'http_proxy', proxy: 'http://q:1', source: 'HTTP_PROXY' }) },
    { ref: 'HTTP_PROXY not for https', env: { HTTP_PROXY: 'http://q:1' }, file: {}, target: https, expected: ok({ kind: 'direct' }) },
    { ref: 'never loopback from the variables', env: { HTTP_PROXY: 'http://q:1' }, file: {}, target: loopback, expected: ok({ kind: 'direct' }) },
    { ref: 'never localhost from the variables', env: { HTTP_PROXY: 'http://q:1' }, file: {}, target: new URL('http://localhost:3080/'), expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY *', env: { HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' }, file: {}, target: https, expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY domain and subdomains', env: { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'other.org, example.com' }, file: {}, target: https, expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY .domain', env: { HTTPS_PROXY: 'http://p:1', no_proxy: '.example.com' }, file: {}, target: https, expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY not a suffix of a label', env: { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'ple.com' }, file: {}, target: https, expected: ok({ kind: 'http_proxy', proxy: 'http://p:1', source: 'HTTPS_PROXY' }) },
    { ref: 'NO_PROXY with the port', env: { HTTP_PROXY: 'http://p:1', NO_PROXY: 'sg.example.com:8080' }, file: {}, target: http, expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY with another port', env: { HTTP_PROXY: 'http://p:1', NO_PROXY: 'sg.example.com:80' }, file: {}, target: http, expected: ok({ kind: 'http_proxy', proxy: 'http://p:1', source: 'HTTP_PROXY' }) },
    { ref: 'NO_PROXY CIDR', env: { HTTP_PROXY: 'http://p:1', NO_PROXY: '10.0.0.0/8' }, file: {}, target: new URL('http://10.1.2.3/'), expected: ok({ kind: 'direct' }) },
    { ref: 'NO_PROXY CIDR outside', env: { HTTP_PROXY: 'http://p:1', NO_PROXY: '10.0.0.0/8' }, file: {}, target: new URL('http://11.1.2.3/'), expected: ok({ kind: 'http_proxy', proxy: 'http://p:1', source: 'HTTP_PROXY' }) },
    { ref: 'a bad proxy variable', env: { HTTPS_PROXY: 'socks5://p:1' }, file: {}, target: https, expected: err({ code: 'invalid_proxy', proxy: 'socks5://p:1' }) },
  ])('should choose $ref', ({ env, file, target, expected }) => {
    expect(resolveProxy(env, file, target, '/home/me')).toStrictEqual(expected);
  });

  test.prop([fc.dictionary(fc.constantFrom('SRC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'), fc.string()), fc.webUrl()])('should never throw', (env, url) => {
    expect(() => resolveProxy(env, {}, new URL(url), '/h')).not.toThrow();
  });
});
