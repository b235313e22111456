import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { parseConfigFile, resolveConnection } from '../../src/cli/config.js';

describe('parseConfigFile', () => {
  it.each([
    { ref: 'spec §1 (config file)', text: '{"endpoint": "http://h", "accessToken": "t"}', expected: ok({ endpoint: 'http://h', accessToken: 't' }) },
    { ref: 'issue 5 (other keys ignored)', text: '{"endpoint": "http://h", "additionalHeaders": {}}', expected: ok({ endpoint: 'http://h' }) },
    { ref: 'issue 5 (JSON)', text: '{endpoint: 1}', expected: err({ code: 'invalid_config_json' }) },
    { ref: 'issue 5 (object)', text: '[]', expected: err({ code: 'invalid_config_field', field: 'file' }) },
    { ref: 'issue 5 (string endpoint)', text: '{"endpoint": 1}', expected: err({ code: 'invalid_config_field', field: 'endpoint' }) },
    { ref: 'issue 5 (string token)', text: '{"accessToken": null}', expected: err({ code: 'invalid_config_field', field: 'accessToken' }) },
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
    { ref: 'issue 5 (environment wins)', env: { SRC_ENDPOINT: 'https://env.example/', SRC_ACCESS_TOKEN: 'env-token' }, expected: ok({ endpoint: 'https://env.example', graphqlUrl: 'https://env.example/.api/graphql', accessToken: 'env-token' }) },
    { ref: 'issue 5 (setting by setting)', env: { SRC_ACCESS_TOKEN: 'env-token' }, expected: ok({ endpoint: 'http://file.example', graphqlUrl: 'http://file.example/.api/graphql', accessToken: 'env-token' }) },
    { ref: 'issue 5 (empty means unset)', env: { SRC_ENDPOINT: '', SRC_ACCESS_TOKEN: '' }, expected: ok({ endpoint: 'http://file.example', graphqlUrl: 'http://file.example/.api/graphql', accessToken: 'file-token' }) },
    { ref: 'spec §9 rule 2 (path under a base path)', env: { SRC_ENDPOINT: 'http://h/sub//' }, expected: ok({ endpoint: 'http://h/sub', graphqlUrl: 'http://h/sub/.api/graphql', accessToken: 'file-token' }) },
    { ref: 'issue 5 (http(s) only)', env: { SRC_ENDPOINT: 'ftp://h' }, expected: err({ code: 'invalid_endpoint', endpoint: 'ftp://h' }) },
    { ref: 'issue 5 (no query)', env: { SRC_ENDPOINT: 'http://h/?x=1' }, expected: err({ code: 'invalid_endpoint', endpoint: 'http://h/?x=1' }) },
    { ref: 'issue 5 (no credentials in the URL)', env: { SRC_ENDPOINT: 'http://u:p@h' }, expected: err({ code: 'invalid_endpoint', endpoint: 'http://u:p@h' }) },
    { ref: 'issue 5 (a URL)', env: { SRC_ENDPOINT: 'localhost:3080' }, expected: err({ code: 'invalid_endpoint', endpoint: 'localhost:3080' }) },
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
