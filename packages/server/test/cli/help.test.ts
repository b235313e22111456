/**
 * `gatehouse --help` and `gatehouse serve --help` (real processes, as an operator types them): exit 0 and list
 * every command, flag and environment variable. The lists here are written out from README's tables, not read
 * from the implementation, so a flag the help leaves out fails.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseStartArguments } from '../../src/run/serve.js';

const run = promisify(execFile);

/** Runs `gatehouse ARGS` from the sources; resolves status and output, also for a non-zero exit. */
async function gatehouse(args: readonly string[]): Promise<{ readonly status: number; readonly stdout: string; readonly stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const SERVE_FLAGS = ['--config', '--port', '--host', '--drain-timeout', '--metrics-address', '--hosta-url', '--hostccloud-url', '--data-dir', '--database-url', '--search-dir'];
const SERVE_ENVIRONMENT = [
  'GATEHOUSE_CONFIG',
  'PORT',
  'HOST',
  'GATEHOUSE_HOSTA_URL',
  'GATEHOUSE_HOSTCCLOUD_URL',
  'GATEHOUSE_DATA_DIR',
  'DATABASE_URL',
  'GATEHOUSE_CREDENTIALS_KEY',
  'GATEHOUSE_MAIL_KEY',
  'LOG_LEVEL',
];
const COMMANDS = ['gatehouse serve', 'gatehouse migrate', 'gatehouse admin create-token', 'gatehouse admin set-password', 'gatehouse --version', 'api'];
const API_FLAGS = ['-query', '-vars', '-config', '-endpoint', '-get-curl', '-dump-requests', '-trace', '-insecure-skip-verify', '-user-agent-telemetry'];
const API_ENVIRONMENT = ['SRC_ENDPOINT', 'SRC_ACCESS_TOKEN', 'SRC_HEADER_', 'SRC_HEADERS', 'SRC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'SRC_DISABLE_USER_AGENT_TELEMETRY'];

describe('gatehouse serve --help', () => {
  it.each([['serve', '--help'], ['serve', '-h']])('should print every server flag and environment variable and exit 0: gatehouse %s %s', async (...args) => {
    const { status, stdout } = await gatehouse(args);
    expect(status).toBe(0);
    for (const word of [...SERVE_FLAGS, ...SERVE_ENVIRONMENT]) expect(stdout).toMatch(new RegExp(`(^|[\\s(])${word}\\b`, 'mu'));
  }, 60_000);

  it('should list only flags the server takes', async () => {
    const { stdout } = await gatehouse(['serve', '--help']);
    const listed = [...new Set(stdout.match(/--[a-z][a-z-]+/gu) ?? [])].filter((flag) => flag !== '--help');
    expect(listed.sort()).toStrictEqual([...SERVE_FLAGS].sort());
    for (const flag of listed) expect(parseStartArguments([flag, flag === '--metrics-address' ? '127.0.0.1:9464' : '1'], {}, '/tmp')).not.toHaveProperty('error');
  }, 60_000);
});

describe('gatehouse --help', () => {
  it('should print every command, flag and environment variable and exit 0', async () => {
    const { status, stdout } = await gatehouse(['--help']);
    expect(status).toBe(0);
    for (const word of [...COMMANDS, ...API_FLAGS, ...SERVE_FLAGS, ...SERVE_ENVIRONMENT, ...API_ENVIRONMENT]) expect(stdout).toContain(word);
  }, 60_000);
});
