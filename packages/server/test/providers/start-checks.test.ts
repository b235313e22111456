import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../../src/core/site-configuration/parse.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from '../../src/providers/code-hosts.js';
import { checkStart, externalMatchesListening } from '../../src/providers/start-checks.js';

const configuration = (text: string) => parseSiteConfiguration(text)._unsafeUnwrap();

describe('externalMatchesListening', () => {
  it.each([
    ['http://localhost:3080', 'http://127.0.0.1:3080', true],
    ['http://localhost:3080/', 'http://127.0.0.1:8080', false],
    ['https://search.example.com', 'http://127.0.0.1:3080', false],
    ['http://search.example.com:3080', 'http://0.0.0.0:3080', true],
    ['http://search.example.com:3080', 'http://10.0.0.5:3080', false],
    ['http://10.0.0.5:3080/sg', 'http://10.0.0.5:3080', true],
    ['http://[::1]:3080', 'http://[::1]:3080', true],
  ])('%s served at %s → %s', (external, listening, expected) => {
    expect(externalMatchesListening(external, listening)).toBe(expected);
  });
});

describe('checkStart', () => {
  it('should say nothing but callbacks when externalURL is the listening address', () => {
    const entries = checkStart({
      configuration: configuration(
        '{ "externalURL": "http://localhost:3080", "auth.providers": [{ "type": "builtin" }, { "type": "hostcserver", "url": "https://hostc.example.com", "clientID": "i", "clientSecret": "s" }] }',
      ),
      listeningURL: 'http://127.0.0.1:3080',
      publicURLs: DEFAULT_PUBLIC_CODE_HOST_URLS,
    });
    expect(entries.map((e) => [e.level, e.event, e['callbackURL'] ?? null])).toStrictEqual([
      ['info', 'provider_callback', 'http://localhost:3080/.auth/hostcserver/callback'],
    ]);
  });

  it('should warn when a changed PORT leaves externalURL behind, and name the callbacks that would break', () => {
    const entries = checkStart({
      configuration: configuration(
        '{ "externalURL": "http://localhost:3080", "auth.providers": [{ "type": "hosta", "clientID": "i", "clientSecret": "s" }, { "type": "hostccloud", "clientKey": "k", "clientSecret": "s" }] }',
      ),
      listeningURL: 'http://127.0.0.1:8080',
      publicURLs: { hosta: 'https://public-hosta.test' },
    });
    expect(entries.map((e) => [e.level, e.event, e['message']])).toStrictEqual([
      [
        'warn',
        'external_url_mismatch',
        'externalURL http://localhost:3080 is not the address this server listens on (http://127.0.0.1:8080): providers send people back to ' +
          'http://localhost:3080. Unless a proxy forwards that address here, set externalURL to this server\'s public address, or remove it to follow the listening address.',
      ],
      ['info', 'provider_callback', 'auth.providers[0] (hosta): register http://localhost:3080/.auth/hosta/callback as the callback address at the provider'],
      ['info', 'provider_public_url', 'auth.providers[0] (hosta) has no url: it uses the public edition at https://public-hosta.test'],
      ['info', 'provider_callback', 'auth.providers[1] (hostccloud): register http://localhost:3080/.auth/hostccloud/callback as the callback address at the provider'],
      [
        'warn',
        'provider_unusable',
        'auth.providers[1] (hostccloud) cannot be used: its url is empty, so it needs the public hostccloud address (publicCodeHostURLs.hostccloud, or GATEHOUSE_HOSTCCLOUD_URL)',
      ],
    ]);
  });

  it('should follow the listening address when externalURL is absent', () => {
    const entries = checkStart({
      configuration: configuration('{ "auth.providers": [{ "type": "hostb", "url": "https://hostb.example.com", "clientID": "i", "clientSecret": "s" }] }'),
      listeningURL: 'http://127.0.0.1:8080',
      publicURLs: DEFAULT_PUBLIC_CODE_HOST_URLS,
    });
    expect(entries.map((e) => e['callbackURL'])).toStrictEqual(['http://127.0.0.1:8080/.auth/hostb/callback']);
  });

  it('should default hosta and hostccloud to their public edition addresses (placeholders on example.com)', () => {
    expect(DEFAULT_PUBLIC_CODE_HOST_URLS).toStrictEqual({ hosta: 'https://hosta.example.com', hostccloud: 'https://hostccloud.example.com' });
  });
});
