/**
 * `gatehouse migrate` and `gatehouse admin create-token USERNAME`: the store commands, run against the same store
 * the server uses (`--database-url`/`DATABASE_URL`, else `--data-dir`/`GATEHOUSE_DATA_DIR`, else
 * `.gatehouse/data`), without starting the server. Loaded only for these commands, so `gatehouse api` never loads
 * a database driver.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { match } from 'ts-pattern';
import { createAdministratorToken } from '../http/administrator.js';
import type { AdministratorTokenError } from '../http/administrator.js';
import { describeStoreLocation, openStore, openStoreErrorMessage, resolveStoreLocation } from '../http/store/open.js';
import { parseStoreCommand } from './args.js';
import type { StoreCommandError } from './args.js';

/**
 * What the store commands touch outside themselves.
 *
 * @example
 * ```ts
 * const io: StoreCommandIo = { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
 * ```
 */
export interface StoreCommandIo {
  /** The environment (`DATABASE_URL`, `GATEHOUSE_DATA_DIR`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory (the default data directory is under it). */
  readonly cwd: string;
  /** Results: what was applied; the new token. */
  readonly stdout: { write(text: string): unknown };
  /** What went wrong, and where the store is. */
  readonly stderr: { write(text: string): unknown };
  /** The clock (default `Date.now`). */
  readonly now?: () => number;
  /** The random source (default `crypto.randomBytes`). */
  readonly randomBytes?: (n: number) => Uint8Array;
}

function usageMessage(e: StoreCommandError): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'unknown_command' }, (x) => `unknown command ${JSON.stringify(x.command)} (try "gatehouse migrate" or "gatehouse admin create-token USERNAME")`)
    .with({ code: 'unknown_flag' }, (x) => `unknown flag --${x.flag} (the store flags are --database-url and --data-dir)`)
    .with({ code: 'missing_flag_value' }, (x) => `flag --${x.flag} needs a value`)
    .with({ code: 'missing_username' }, () => 'admin create-token needs the username of an existing site administrator')
    .with({ code: 'unexpected_argument' }, (x) => `unexpected argument ${JSON.stringify(x.argument)}`)
    .exhaustive();
}

function tokenMessage(e: AdministratorTokenError): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'unknown_username' }, (x) => `no account is named ${JSON.stringify(x.username)}`)
    .with({ code: 'not_site_admin' }, (x) => `${x.username} is not a site administrator: a site-admin:sudo token is for site administrators only`)
    .with({ code: 'token_generation_failed' }, () => 'the token could not be generated')
    .with(
      { code: 'username_taken' },
      { code: 'email_taken' },
      { code: 'unknown_user' },
      { code: 'unknown_access_token' },
      { code: 'external_account_taken' },
      { code: 'unknown_external_account' },
      { code: 'duplicate_digest' },
      { code: 'client_id_taken' },
      { code: 'unknown_oauth_app' },
      { code: 'unknown_oauth_consent' },
      (x) => `the store refused the token (${x.code})`,
    )
    .exhaustive();
}

/**
 * Runs `gatehouse migrate …` or `gatehouse admin create-token …`.
 *
 * @param argv - The arguments after `gatehouse`, the command first.
 * @param io - Environment, working directory, streams, clock and random source.
 * @returns The exit status: 0 done, 1 the store refused or failed, 2 a usage error.
 * @example
 * ```ts
 * process.exitCode = await runStoreCommand(['migrate'], { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
 * // stdout: 'applied migration 1 (initial)\napplied migration 2 (settings)\nschema version 2\n'
 * ```
 */
export async function runStoreCommand(argv: readonly string[], io: StoreCommandIo): Promise<number> {
  const command = parseStoreCommand(argv);
  if (command.isErr()) {
    io.stderr.write(`gatehouse: ${usageMessage(command.error)}\n`);
    return 2;
  }
  const location = resolveStoreLocation(command.value, io.env, io.cwd);
  io.stderr.write(`gatehouse: store ${describeStoreLocation(location)}\n`);
  const opened = await openStore(location).catch((error: unknown) => ({ failed: error instanceof Error ? error.message : String(error) }));
  if ('failed' in opened) {
    io.stderr.write(`gatehouse: cannot open the store: ${opened.failed}\n`);
    return 1;
  }
  if (opened.isErr()) {
    io.stderr.write(`gatehouse: ${openStoreErrorMessage(opened.error)}\n`);
    return 1;
  }
  const { store, migrations } = opened.value;
  try {
    if (command.value.kind === 'migrate') {
      for (const m of migrations.applied) io.stdout.write(`applied migration ${m.version} (${m.name})\n`);
      if (migrations.applied.length === 0) io.stdout.write('nothing to apply: the schema is current\n');
      io.stdout.write(`schema version ${migrations.version}\n`);
      return 0;
    }
    const random = io.randomBytes ?? ((n: number): Uint8Array => new Uint8Array(randomBytes(n)));
    const minted = await createAdministratorToken(store, command.value.username, { now: io.now ?? Date.now, randomBytes: random });
    if (minted.isErr()) {
      io.stderr.write(`gatehouse: ${tokenMessage(minted.error)}\n`);
      return 1;
    }
    // the secret is shown once, alone on standard output so that a script can take it; only its digest is stored
    io.stderr.write(`gatehouse: new access token ${minted.value.record.id} for ${command.value.username} (scopes ${minted.value.record.scopes.join(', ')}); it is not shown again\n`);
    io.stdout.write(`${minted.value.secret}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
