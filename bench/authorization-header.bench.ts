/**
 * `Authorization` header parsing throughput: gatehouse's `parseAuthorizationHeader` beside the npm packages
 * `http-auth-utils` (`parseAuthorizationHeader`, case-insensitive mode) and `auth-header` (`parse`) on the
 * same inputs, in the same process. A peer that throws is timed including the throw, and what each one made
 * of each input is printed first, so a fast wrong answer is visible as such.
 */
import { createRequire } from 'node:module';
import { parseAuthorizationHeader as hauParse } from 'http-auth-utils';
import { parseAuthorizationHeader, MAX_AUTHORIZATION_HEADER_LENGTH } from '../src/core/authorization-header.js';
import { measure, printTable, type Measurement } from './harness.js';

type AuthHeaderParse = (header: string) => { scheme: string; token: unknown; params: Record<string, unknown> };

// auth-header ships CommonJS without type declarations; its shape is checked at run time below.
const authHeaderModule: unknown = createRequire(import.meta.url)('auth-header');
function loadAuthHeaderParse(): AuthHeaderParse {
  if (typeof authHeaderModule === 'object' && authHeaderModule !== null && 'parse' in authHeaderModule) {
    const parse: unknown = authHeaderModule.parse;
    if (typeof parse === 'function') return (header) => parse(header);
  }
  throw new Error('auth-header has no parse function');
}
const authHeaderParse = loadAuthHeaderParse();

function fill(prefix: string, unit: string, length: number): string {
  return (prefix + unit.repeat(Math.ceil(length / unit.length))).slice(0, length);
}

const SECRET = 'sgp_1f2e3d4c5b6a79880716253443526170f9e8d7c6';
const JWT =
  'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwic2NvcGUiOiJ1c2VyOmFsbCIsImV4cCI6MTcwMDAwMDAwMH0.c2lnbmF0dXJlLXBsYWNlaG9sZGVyLXNpZ25hdHVyZS1wbGFjZWhvbGRlcg';

const INPUTS: ReadonlyArray<{ readonly name: string; readonly header: string }> = [
  { name: 'token', header: `token ${SECRET}` },
  { name: 'Bearer', header: `Bearer ${JWT}` },
  { name: 'token-sudo', header: `token-sudo user="alice",token="${SECRET}"` },
  { name: 'Basic', header: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==' },
  { name: 'hostile 8 KiB: escaped quotes', header: fill('token-sudo user="', '\\"', MAX_AUTHORIZATION_HEADER_LENGTH) },
  { name: 'hostile 8 KiB: a=, pairs', header: fill('token-sudo ', 'a=,', MAX_AUTHORIZATION_HEADER_LENGTH) },
];

interface Peer {
  readonly name: string;
  readonly parse: (header: string) => unknown;
  /** What the implementation made of the input, in gatehouse's terms. */
  readonly describe: (header: string) => string;
}

function describeThrow(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 40) ?? '' : String(error);
  return `threw ${code || message}`;
}

function attempt(describe: () => string): string {
  try {
    return describe();
  } catch (error) {
    return describeThrow(error);
  }
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 24 ? `${text.slice(0, 21)}…(${text.length})` : text;
}

const PEERS: readonly Peer[] = [
  {
    name: 'gatehouse',
    parse: (header) => parseAuthorizationHeader(header),
    describe: (header) =>
      parseAuthorizationHeader(header).match(
        (c) => (c === null ? 'anonymous' : `${c.scheme} ${'user' in c ? `user=${short(c.user)} ` : ''}token=${short(c.token)}`),
        (e) => (e.code === 'unsupported_scheme' ? `unsupported ${e.scheme} (audited)` : `malformed: ${e.reason}`),
      ),
  },
  {
    name: 'http-auth-utils',
    parse: (header) => {
      try {
        return hauParse(header, undefined, { strict: false });
      } catch (error) {
        return error;
      }
    },
    describe: (header) =>
      attempt(() => {
        const r = hauParse(header, undefined, { strict: false });
        return `${r.type} ${short(r.data)}`;
      }),
  },
  {
    name: 'auth-header',
    parse: (header) => {
      try {
        return authHeaderParse(header);
      } catch (error) {
        return error;
      }
    },
    describe: (header) =>
      attempt(() => {
        const r = authHeaderParse(header);
        return `${r.scheme} ${r.token === null ? '' : `token=${short(r.token)} `}${Object.keys(r.params).length > 0 ? `params=${short(r.params)}` : ''}`.trim();
      }),
  },
];

let sink = 0;
function consume(value: unknown): void {
  if (value !== undefined) sink++;
}

/** Runs the benchmark and prints one table of outcomes and one timing table per input plus the mixed corpus. */
export function run(): void {
  console.log('\n## Authorization header: what each implementation makes of each input');
  console.log(`| input | ${PEERS.map((p) => p.name).join(' | ')} |`);
  console.log(`| --- |${PEERS.map(() => ' --- |').join('')}`);
  for (const input of INPUTS) {
    console.log(`| ${input.name} | ${PEERS.map((p) => p.describe(input.header).replace(/\|/g, '\\|')).join(' | ')} |`);
  }

  for (const input of INPUTS) {
    const rows: Measurement[] = PEERS.map((peer) => ({
      name: peer.name,
      nsPerOp: measure(() => consume(peer.parse(input.header))),
    }));
    printTable(`Authorization header parse: ${input.name} (${input.header.length} chars)`, 'gatehouse', rows);
  }

  const corpus = INPUTS.map((i) => i.header);
  const mixed: Measurement[] = PEERS.map((peer) => ({
    name: peer.name,
    nsPerOp: measure(() => {
      for (const header of corpus) consume(peer.parse(header));
    }),
  }));
  printTable(`Authorization header parse: mixed corpus (all ${corpus.length} inputs above per op)`, 'gatehouse', mixed);
  if (sink < 0) console.log(sink);
}
