import { createHash, randomBytes } from 'node:crypto';
import { parse, buildSchema, specifiedRules, validate } from 'graphql';
import {
  parseAuthorizationHeader, authorizeSudo, generateAccessToken, parseAccessToken, hashAccessToken,
  decideTokenRefresh, normalizeUsername, withRandomSuffix, analyzeQueryCost, checkQueryCost,
  parseSiteConfiguration, decideProviderAccess, resolveSignIn, accountDirectoryFromArray,
  identityFromProxyHeaders, callbackUrl, oauthScopes, queryCostRule, decideRefreshTokenGrant,
  DEFAULT_QUERY_LIMITS,
} from 'gatehouse-auth';

const show = (label: string, v: unknown) => console.log(label, JSON.stringify(v));
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

show('h1', parseAuthorizationHeader('token-sudo user="alice",token="gat_x"'));
show('h2', parseAuthorizationHeader('Basic QWxhZGRpbjo='));
const secret = generateAccessToken(new Uint8Array(20).fill(7));
show('g', secret);
show('p', secret.andThen(parseAccessToken));
show('hash', secret.andThen((s) => hashAccessToken(s, sha256)));
const alice = { id: 'u2', username: 'alice' };
show('sudo', authorizeSudo({ token: { scopes: ['user:all'] }, tokenOwner: { siteAdmin: true }, target: alice }));
show('sudo2', authorizeSudo({ token: { scopes: ['user:all', 'site-admin:sudo'] }, tokenOwner: { siteAdmin: true }, target: alice }));
const token = { accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000, refreshToken: 'rt' };
show('r1', decideTokenRefresh({ now: 1_000, token }));
show('r2', decideTokenRefresh({ now: 3_500_000, token }));
show('n1', normalizeUsername('john_doe@example.com'));
show('n2', normalizeUsername('a..b--c.'));
show('s', withRandomSuffix('alice', new Uint8Array(16).fill(1)));
const cost = analyzeQueryCost(parse('{ a(first: 10) { x } b { y } }'));
show('c', cost);
show('c2', cost.andThen((c) => checkQueryCost(c, { ...DEFAULT_QUERY_LIMITS, maxFieldCount: 10 })));
show('cfg', parseSiteConfiguration('{ "auth.providers": [{ "type": "hosta", "allowSingup": true }] }'));
const site = parseSiteConfiguration(`{
  "externalURL": "https://search.example.com",
  "auth.providers": [
    { "type": "hosta", "url": "https://hosta.example.com", "clientID": "id", "clientSecret": "s", "allowOrgs": ["acme"] },
    { "type": "hostb", "url": "https://hostb.example.com", "clientID": "id", "clientSecret": "s", "allowGroups": ["acme"] },
    { "type": "http-header", "usernameHeader": "X-Forwarded-User", "emailHeader": "X-Forwarded-Email", "stripUsernameHeaderPrefix": "sso:" }
  ]
}`)._unsafeUnwrap();
show('site', site.authProviders);
const [hosta, hostb, proxy] = site.authProviders;
const identity = { accountId: '1234', username: 'octo', emails: [{ address: 'Octo@example.com', verified: true }], orgs: ['acme'], teams: [] };
show('pa', decideProviderAccess(hosta!, identity));
show('pa2', decideProviderAccess(hostb!, { accountId: '2', username: 'b', emails: [], groups: [{ fullPath: 'acme', accessLevel: 5 }] }));
const directory = accountDirectoryFromArray([
  { id: 'u1', username: 'octavia', origin: 'admin_created', emails: [{ address: 'octo@example.com', verified: true }], externalAccounts: [] },
])._unsafeUnwrap();
show('si', resolveSignIn({ provider: hosta!, identity, signedInUserId: null, directory, randomBytes: (n) => new Uint8Array(randomBytes(n)) }));
show('px', identityFromProxyHeaders(proxy as never, { 'x-forwarded-user': 'sso:alice', 'x-forwarded-email': 'alice@example.com' }));
show('cb', callbackUrl(hosta!, site.externalURL));
show('sc', oauthScopes(hostb!));
const schema = buildSchema('type Query { a(first: Int): [A] b: A } type A { x: Int y: Int }');
show('v', validate(schema, parse('{ a { x } }'), [...specifiedRules, queryCostRule({ ...DEFAULT_QUERY_LIMITS, maxDepth: 1 })]).map(e => ({m: e.message, x: e.extensions})));
const record = { tokenHash: 'h', familyId: 'f1', clientId: 'gai_c', userId: 'u1', scopes: ['user:all'], expiresAt: 10_000, familyRevoked: false, used: false };
const grant = { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null } as const;
show('rg', decideRefreshTokenGrant({ now: 1_000, clientId: 'gai_c', grant, record }));
show('rg2', decideRefreshTokenGrant({ now: 1_000, clientId: 'gai_c', grant, record: { ...record, used: true } }));
