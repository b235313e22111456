/**
 * `gatehouse doctor [-config FILE] [-endpoint URL] [-timeout SECONDS]`: reads a site configuration file, or without
 * `-config` the running server's (GraphQL `effectiveSiteConfiguration`, asked with a site administrator's token as
 * `gatehouse api` asks: see doctor-server.ts), with the core's parser, probes what can be probed from this machine
 * (each with a timeout), and prints one line per finding with its JSON path; exit 0 when clean, 1 with findings, 2
 * for a usage error (or a token the server refuses). The checks are the pure functions of doctor-checks.ts; this
 * module only fetches the facts.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { parseSiteConfiguration } from 'gatehouse-auth';
import { diagnose, doctorNotes, planProbes } from './doctor-checks.js';
import { readRunningConfiguration } from './doctor-server.js';
import type { CertificateFact, Finding, HttpFact } from './doctor-checks.js';

/** What `runDoctor` touches outside itself. */
export interface DoctorIo {
  /** The environment (`SRC_ENDPOINT` names the running server when `-endpoint` is not given). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard output: the findings. */
  readonly stdout: { write(chunk: string): unknown };
  /** Standard error: usage errors. */
  readonly stderr: { write(chunk: string): unknown };
  /** Reads a UTF-8 file. */
  readonly readFile: (path: string) => Promise<string>;
  /** The clock, ms since the epoch. */
  readonly now: () => number;
  /** HTTP (the global `fetch` by default). */
  readonly fetch?: typeof fetch;
  /** The user's home directory, for `gatehouse api`'s `~/src-config.json` (`os.homedir` by default). */
  readonly homedir?: () => string;
}

/**
 * The usage text of `gatehouse doctor`.
 *
 * @example
 * ```ts
 * process.stdout.write(DOCTOR_USAGE);
 * ```
 */
export const DOCTOR_USAGE = `Usage: gatehouse doctor -config FILE [-endpoint URL] [-timeout SECONDS]
       gatehouse doctor -endpoint URL [-timeout SECONDS]     (SRC_ACCESS_TOKEN: a site administrator's token)

Checks a site configuration from this machine and prints one line per finding with its JSON path:
each openidconnect issuer's discovery document answers, names the same issuer and has HTTPS endpoints (and the
redirect URI gatehouse sends); each code host URL answers; SAML certificates are valid for 30 days more; the
clock is within 60 s of each provider's Date header; the configuration's own problems (http-header without
trustedProxies, …). With -endpoint (or SRC_ENDPOINT), externalURL is checked against the running server.
Without -config, the configuration checked is the running server's own (secrets masked), read at -endpoint (or
SRC_ENDPOINT) with SRC_ACCESS_TOKEN, headers and proxy as gatehouse api takes them; the token must be a site
administrator's.

Exit status: 0 no finding, 1 findings (or no answer from the server), 2 a usage error or a token the server
refuses.
`;

const DEFAULT_TIMEOUT_SECONDS = 5;
/** The most bytes of a probed answer read (a discovery document is a few kilobytes). */
const MAX_ANSWER_BYTES = 256 * 1024;

interface DoctorArguments {
  /** The site configuration file; `null`: read the running server's. */
  readonly config: string | null;
  readonly endpoint: string | null;
  readonly timeoutMs: number;
}

function parseArguments(argv: readonly string[], env: DoctorIo['env']): DoctorArguments | string {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const match = /^--?([a-z-]+)(?:=(.*))?$/u.exec(arg);
    const name = match?.[1];
    if (name === undefined || !['config', 'endpoint', 'timeout'].includes(name)) return `unknown argument ${JSON.stringify(arg)}`;
    const value = match?.[2] ?? argv[++i];
    if (value === undefined || value === '') return `flag -${name} needs a value`;
    values[name] = value;
  }
  const config = values['config'] ?? null;
  const timeout = Number(values['timeout'] ?? DEFAULT_TIMEOUT_SECONDS);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 600) return '-timeout must be a number of seconds from 0 to 600';
  const given = values['endpoint'] ?? env['SRC_ENDPOINT'] ?? null;
  const endpoint = given === '' ? null : given;
  if (config === null && endpoint === null) {
    return "no configuration: pass -config FILE, or -endpoint URL (or SRC_ENDPOINT) with SRC_ACCESS_TOKEN, a site administrator's token, to check the running server's";
  }
  return { config, endpoint, timeoutMs: timeout * 1000 };
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : '';
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out';
  if (code === 'ECONNREFUSED') return 'connection refused';
  return code !== '' ? code : cause instanceof Error ? cause.message : String(cause);
}

/** GETs a URL within the timeout, reading at most {@link MAX_ANSWER_BYTES} of its body. */
async function probe(doFetch: typeof fetch, url: string, timeoutMs: number): Promise<HttpFact> {
  try {
    const response = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow', headers: { accept: 'application/json' } });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes.subarray(0, MAX_ANSWER_BYTES));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const header = response.headers.get('date');
    const date = header === null ? null : Date.parse(header);
    return { kind: 'answered', status: response.status, date: date === null || Number.isNaN(date) ? null : date, json };
  } catch (error) {
    return { kind: 'unreachable', reason: reasonOf(error) };
  }
}

/** Reads a PEM or base64 DER certificate. */
function readCertificate(text: string): CertificateFact {
  const body = text.includes('-----BEGIN') ? text : `-----BEGIN CERTIFICATE-----\n${text.replace(/\s+/gu, '').replace(/(.{64})/gu, '$1\n')}\n-----END CERTIFICATE-----\n`;
  try {
    const certificate = new X509Certificate(body);
    return { kind: 'parsed', validFrom: Date.parse(certificate.validFrom), validTo: Date.parse(certificate.validTo), subject: certificate.subject.replace(/\n/gu, ', ') };
  } catch {
    return { kind: 'unparsable' };
  }
}

function line(finding: Finding): string {
  return `${finding.path === '' ? '(configuration)' : finding.path}: ${finding.message}\n`;
}

/**
 * Runs `gatehouse doctor` with the arguments after `doctor`.
 *
 * @param argv - Such as `['-config', '/etc/gatehouse/site.json']`, or `['-endpoint', 'https://gh.example.com']` for the running server's.
 * @param io - Environment, streams, file reading, clock and HTTP.
 * @returns The exit status: 0 clean, 1 findings, 2 usage.
 * @example
 * ```ts
 * process.exitCode = await runDoctor(['-config', 'site.json'], { env: process.env, stdout: process.stdout, stderr: process.stderr, readFile: (p) => readFile(p, 'utf8'), now: Date.now });
 * ```
 */
export async function runDoctor(argv: readonly string[], io: DoctorIo): Promise<number> {
  if (argv.includes('-h') || argv.includes('-help') || argv.includes('--help')) {
    io.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  const args = parseArguments(argv, io.env);
  if (typeof args === 'string') {
    io.stderr.write(`gatehouse doctor: ${args}\n\n${DOCTOR_USAGE}`);
    return 2;
  }
  let text: string;
  if (args.config === null) {
    // the running server's configuration (args.endpoint is set: parseArguments asks for one or the other)
    const running = await readRunningConfiguration(args.endpoint ?? '', { ...io, timeoutMs: args.timeoutMs });
    if (running.kind !== 'read') {
      io.stderr.write(`gatehouse doctor: ${running.message}\n`);
      return running.kind === 'refused' ? 2 : 1;
    }
    text = running.text;
  } else {
    try {
      text = await io.readFile(args.config);
    } catch (error) {
      io.stdout.write(`(configuration): cannot read ${args.config}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const parsed = parseSiteConfiguration(text);
  if (parsed.isErr()) {
    // the configuration's own problems, each at its path (spec §2.5, §8; trustedProxies and http-header)
    for (const problem of parsed.error.problems) io.stdout.write(line({ path: problem.path, message: problem.message }));
    return 1;
  }
  const config = parsed.value;
  const doFetch = io.fetch ?? fetch;
  const plan = planProbes(config);
  const [discovery, codeHosts, metadata] = await Promise.all([
    Promise.all(plan.discovery.map(async (p) => [p.index, await probe(doFetch, p.url, args.timeoutMs)] as const)),
    Promise.all(plan.codeHosts.map(async (p) => [p.index, await probe(doFetch, p.url, args.timeoutMs)] as const)),
    args.endpoint === null ? null : probe(doFetch, `${args.endpoint.replace(/\/+$/u, '')}/.well-known/oauth-authorization-server`, args.timeoutMs),
  ]);
  const findings = diagnose(config, {
    now: io.now(),
    discovery: new Map(discovery),
    codeHosts: new Map(codeHosts),
    certificates: new Map(plan.certificates.map((c) => [c.index, readCertificate(c.text)] as const)),
    ...(args.endpoint === null || metadata === null ? {} : { server: { endpoint: args.endpoint, metadata } }),
  });
  for (const note of doctorNotes(config)) io.stdout.write(`note ${line(note)}`);
  for (const finding of findings) io.stdout.write(line(finding));
  io.stdout.write(findings.length === 0 ? 'No finding.\n' : `${findings.length} finding${findings.length === 1 ? '' : 's'}.\n`);
  return findings.length === 0 ? 0 : 1;
}
