/**
 * How `gatehouse doctor` reads the running server's site configuration: GraphQL `effectiveSiteConfiguration` (site
 * administrators only; every secret reads `REDACTED`), sent by `gatehouse api` itself ({@link runCli}), so the
 * token (`SRC_ACCESS_TOKEN` or `~/src-config.json`), extra headers and proxy are read exactly as `gatehouse api`
 * and `gatehouse config preview` read them.
 *
 * @module
 */
import { homedir } from 'node:os';
import { runCli } from './main.js';
import type { CliIo } from './main.js';

/**
 * The query sent.
 *
 * @example
 * ```ts
 * EFFECTIVE_CONFIGURATION_QUERY; // 'query DoctorEffectiveSiteConfiguration { effectiveSiteConfiguration }'
 * ```
 */
export const EFFECTIVE_CONFIGURATION_QUERY = 'query DoctorEffectiveSiteConfiguration { effectiveSiteConfiguration }';

/** What asking the running server found. */
export type RunningConfiguration =
  /** The configuration text (JSON, secrets masked). */
  | { readonly kind: 'read'; readonly text: string }
  /** The server answered with GraphQL errors (no token, or not a site administrator's): their messages. */
  | { readonly kind: 'refused'; readonly message: string }
  /** No usable answer: no connection, an HTTP error, or a server without the field. */
  | { readonly kind: 'failed'; readonly message: string };

/** What {@link readRunningConfiguration} touches outside itself. */
export interface RunningConfigurationIo {
  /** The environment (`SRC_ACCESS_TOKEN`, `SRC_HEADER_*`, `SRC_PROXY` …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a UTF-8 file (`~/src-config.json`). */
  readonly readFile: (path: string) => Promise<string>;
  /** The home directory (default `os.homedir`). */
  readonly homedir?: () => string;
  /** How long the request may take, in milliseconds (default: `gatehouse api`'s 120 s). */
  readonly timeoutMs?: number;
}

const EMPTY_INPUT: CliIo['stdin'] = {
  async *[Symbol.asyncIterator]() {
    // the query is given with -query: standard input is never read
  },
};

function errorMessages(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null || !('errors' in answer) || !Array.isArray(answer.errors)) return null;
  const errors: unknown[] = answer.errors;
  const messages = errors.map((e) => (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string' ? e.message : JSON.stringify(e)));
  return messages.length === 0 ? null : messages.join('; ');
}

function configurationOf(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null || !('data' in answer)) return null;
  const data: unknown = answer.data;
  if (typeof data !== 'object' || data === null || !('effectiveSiteConfiguration' in data)) return null;
  return typeof data.effectiveSiteConfiguration === 'string' ? data.effectiveSiteConfiguration : null;
}

/**
 * Asks the server at `endpoint` for the site configuration it runs.
 *
 * @param endpoint - The server's base URL.
 * @param io - Environment, file reading and home directory.
 * @returns The text, the server's refusal, or why there is no answer.
 * @example
 * ```ts
 * const running = await readRunningConfiguration('https://gh.example.com', { env: process.env, readFile: (p) => readFile(p, 'utf8') });
 * if (running.kind === 'read') parseSiteConfiguration(running.text);
 * ```
 */
export async function readRunningConfiguration(endpoint: string, io: RunningConfigurationIo): Promise<RunningConfiguration> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(['-endpoint', endpoint, 'api', '-query', EFFECTIVE_CONFIGURATION_QUERY], {
    env: io.env,
    stdin: EMPTY_INPUT,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    readFile: io.readFile,
    homedir: io.homedir ?? homedir,
    ...(io.timeoutMs === undefined ? {} : { requestTimeoutMs: io.timeoutMs }),
  });
  let answer: unknown = null;
  try {
    answer = JSON.parse(stdout);
  } catch {
    answer = null;
  }
  const refused = errorMessages(answer);
  if (refused !== null) {
    return { kind: 'refused', message: `the server at ${endpoint} refused to show its configuration: ${refused} (SRC_ACCESS_TOKEN must be a site administrator's token)` };
  }
  const text = status === 0 ? configurationOf(answer) : null;
  if (text === null) {
    const why = stderr.replace(/^gatehouse: /u, '').trim();
    return { kind: 'failed', message: why !== '' ? why : `the server at ${endpoint} did not answer with its configuration (is it a gatehouse server of this version?)` };
  }
  return { kind: 'read', text };
}
