/**
 * `gatehouse migrate`, `gatehouse admin create-token USERNAME` and `gatehouse admin set-password USERNAME`: the
 * store commands, run against the same store
 * the server uses (`--database-url`/`DATABASE_URL`, else `--data-dir`/`GATEHOUSE_DATA_DIR`, else
 * `.gatehouse/data`), without starting the server. Loaded only for these commands, so `gatehouse api` never loads
 * a database driver.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { readFile } from 'node:fs/promises';
import { checkNewPassword, DEFAULT_PASSWORD_RULE, MAX_PASSWORD_BYTES, newPasswordMessage, parseSiteConfiguration, usernameKey } from 'gatehouse-auth';
import type { PasswordRule } from 'gatehouse-auth';
import { hashPassword } from '../session/sessions.js';
import type { Store } from '../store/types.js';
import { createAdministratorToken } from './administrator.js';
import type { AdministratorTokenError } from './administrator.js';
import { describeStoreLocation, openStore, openStoreErrorMessage, resolveStoreLocation } from '../store/open.js';
import { parseStoreCommand } from '../cli/args.js';
import type { StoreCommandError } from '../cli/args.js';

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
  /** Reads all of standard input (the new password of `admin set-password`); default: the process's stdin. */
  readonly readStdin?: () => Promise<string>;
}

function usageMessage(e: StoreCommandError): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'unknown_command' }, (x) => `unknown command ${JSON.stringify(x.command)} (try "gatehouse migrate" or "gatehouse admin create-token USERNAME")`)
    .with({ code: 'unknown_flag' }, (x) => `unknown flag --${x.flag} (the store flags are --database-url and --data-dir)`)
    .with({ code: 'missing_flag_value' }, (x) => `flag --${x.flag} needs a value`)
    .with({ code: 'missing_username' }, () => 'admin create-token and admin set-password need the username of an existing account')
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
  const onPermissionsFixed = (fixed: { readonly dataDir: string }): void => {
    io.stderr.write(`gatehouse: the data directory ${fixed.dataDir} could be read by other users: set its directories to 0700 and its files to 0600\n`);
  };
  const opened = await openStore(location, { onPermissionsFixed }).catch((error: unknown) => ({ failed: error instanceof Error ? error.message : String(error) }));
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
    if (command.value.kind === 'set_password') {
      const rule = await passwordRuleOf(io.env['GATEHOUSE_CONFIG']);
      if (typeof rule === 'string') {
        io.stderr.write(`gatehouse: ${rule}\n`);
        return 1;
      }
      const input = await (io.readStdin ?? readProcessStdin)();
      const set = await setPassword(store, command.value.username, input, { now: io.now ?? Date.now, randomBytes: random }, rule);
      if (set.isErr()) {
        io.stderr.write(`gatehouse: ${set.error}\n`);
        return 1;
      }
      io.stdout.write(`password set for ${command.value.username}; ${set.value} session${set.value === 1 ? '' : 's'} ended\n`);
      return 0;
    }
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

/**
 * The password rule of the site configuration the server reads (`GATEHOUSE_CONFIG`, as `gatehouse serve` reads
 * it): `auth.minPasswordLength` and `auth.passwordPolicy`; the options' defaults when the variable is unset. A file
 * that cannot be read or parsed is an error message: a password is never set under a rule gatehouse could not read.
 */
async function passwordRuleOf(configPath: string | undefined): Promise<PasswordRule | string> {
  if (configPath === undefined || configPath === '') return DEFAULT_PASSWORD_RULE;
  let text: string;
  try {
    text = await readFile(configPath, 'utf8');
  } catch (error) {
    return `cannot read the site configuration ${configPath} (GATEHOUSE_CONFIG): ${error instanceof Error ? error.message : String(error)}`;
  }
  return parseSiteConfiguration(text).match(
    (configuration) => configuration.accountOptions.passwordRule,
    (error) => `the site configuration ${configPath} (GATEHOUSE_CONFIG) has problems: ${error.problems.map((p) => `${p.path === '' ? '' : `${p.path}: `}${p.message}`).join('; ')}`,
  );
}

/** Reads standard input to its end, as UTF-8 text. */
async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sets an account's built-in password from the command line (`gatehouse admin set-password USERNAME`, the
 * password on standard input, one trailing newline dropped): the rule of §5.3 "Built-in" and the site's options (`checkNewPassword`),
 * never a service account (they authenticate with access tokens only, §1), every session of the account ended,
 * and an audit entry (`user.password`, `reset`).
 *
 * @param store - The store.
 * @param username - The account.
 * @param input - What standard input held.
 * @param sources - Clock and random source.
 * @param rule - The site's password rule (`auth.minPasswordLength`, `auth.passwordPolicy`). Default: the options' defaults.
 * @returns How many sessions ended, or the message to print.
 * @example
 * ```ts
 * await setPassword(store, 'admin', 'correct horse battery\n', { now: Date.now, randomBytes }); // ok(0)
 * ```
 */
export async function setPassword(
  store: Store,
  username: string,
  input: string,
  sources: { readonly now: () => number; readonly randomBytes: (n: number) => Uint8Array },
  rule: PasswordRule = DEFAULT_PASSWORD_RULE,
): Promise<Result<number, string>> {
  const checked = checkNewPassword(input.replace(/\r?\n$/, ''), rule);
  if (checked.isErr()) {
    return err(
      match(checked.error)
        .returnType<string>()
        .with({ code: 'password_too_short' }, (e) => `the password on standard input has fewer than ${e.min} characters`)
        .with({ code: 'password_too_long' }, () => `the password on standard input has more than ${MAX_PASSWORD_BYTES} bytes`)
        .with({ code: 'invalid_input' }, () => 'no password on standard input')
        .with({ code: 'password_needs_special_characters' }, { code: 'password_needs_number' }, { code: 'password_needs_upper_and_lower_case' }, (e) =>
          `${newPasswordMessage(e).replace('The new password', 'the password on standard input').replace(/\.$/, '')} (auth.passwordPolicy)`)
        .exhaustive(),
    );
  }
  const account = await store.accounts.findByUsernameKey(usernameKey(username));
  if (account === null) return err(`no account is named ${JSON.stringify(username)}`);
  if (account.serviceAccount) return err(`${account.username} is a service account: service accounts authenticate with access tokens only`);
  const hash = await hashPassword(checked.value, sources.randomBytes);
  const ended = await store.transaction(async (tx): Promise<Result<number, string>> => {
    const updated = await tx.accounts.setPasswordHash(account.id, hash);
    if (updated.isErr()) return err(`the store refused the password (${updated.error.code})`);
    const count = await tx.sessions.deleteForUser(account.id);
    await tx.audit.append({
      timestamp: sources.now(),
      entity: 'user.password',
      action: 'reset',
      reason: 'set from the command line',
      actorUserId: null,
      subjectUserId: account.id,
      details: { sessionsEnded: String(count) },
    });
    return ok(count);
  });
  return ended;
}
