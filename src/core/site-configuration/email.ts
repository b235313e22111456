/**
 * The site options of outgoing mail: `email.smtp` (the relay gatehouse sends through), `email.address` (the
 * sender) and `email.senderName`, with the names and defaults administrators know from the code search service
 * the spec describes. Without `email.smtp` mail is off: every link is still made, and a site administrator copies
 * it from the Users page.
 *
 * @module
 */
import { isRecord, ownField } from '../internal/guard.js';
import { optional, wrongType } from './fields.js';
import { type Context, formatPath, nearest, report, type Segments } from './problems.js';

/**
 * How gatehouse authenticates to the SMTP relay: not at all, `AUTH PLAIN` or `AUTH CRAM-MD5`.
 *
 * @example
 * ```ts
 * SMTP_AUTHENTICATIONS; // ['none', 'PLAIN', 'CRAM-MD5']
 * ```
 */
export const SMTP_AUTHENTICATIONS = ['none', 'PLAIN', 'CRAM-MD5'] as const;

/** One of {@link SMTP_AUTHENTICATIONS}. */
export type SmtpAuthentication = (typeof SMTP_AUTHENTICATIONS)[number];

/**
 * The sender name used when `email.senderName` is unset.
 *
 * @example
 * ```ts
 * DEFAULT_EMAIL_SENDER_NAME; // 'gatehouse'
 * ```
 */
export const DEFAULT_EMAIL_SENDER_NAME = 'gatehouse';

/** `email.smtp`: the relay gatehouse sends through, over STARTTLS whenever the relay offers it. */
export interface SmtpConfiguration {
  /** The relay's host name or address. */
  readonly host: string;
  /** The relay's port (1 to 65535), such as 587 (submission) or 25. */
  readonly port: number;
  /** The user name to authenticate as; present when `authentication` is not `none`. */
  readonly username?: string;
  /** The password (a secret: masked on the Site configuration page, never logged); present when `authentication` is not `none`. */
  readonly password?: string;
  /** How to authenticate. */
  readonly authentication: SmtpAuthentication;
  /** The name gatehouse gives itself in `EHLO`; absent: the machine's host name. */
  readonly domain?: string;
  /** Whether to accept a relay certificate that does not verify (self-signed, wrong name). Default `false`. */
  readonly noVerifyTLS: boolean;
}

/** The mail options, every default applied. */
export interface EmailConfiguration {
  /** `email.smtp`, or `null` when unset: mail is off. */
  readonly smtp: SmtpConfiguration | null;
  /** `email.address`: the sender's address (`From:`), or `null` when unset (required with `email.smtp`). */
  readonly address: string | null;
  /** `email.senderName`: the sender's display name; {@link DEFAULT_EMAIL_SENDER_NAME} when unset. */
  readonly senderName: string;
}

/**
 * The mail options when the site configuration has none: mail off.
 *
 * @example
 * ```ts
 * EMAIL_OFF; // { smtp: null, address: null, senderName: 'gatehouse' }
 * ```
 */
export const EMAIL_OFF: EmailConfiguration = { smtp: null, address: null, senderName: DEFAULT_EMAIL_SENDER_NAME };

const SMTP_FIELDS = ['host', 'port', 'username', 'password', 'authentication', 'domain', 'noVerifyTLS'] as const;

// one address: a local part and a domain, no spaces, no control characters, no second "@", no angle brackets
const EMAIL_ADDRESS = /^[^\s@<>()[\]\\,;:"\x00-\x1f\x7f]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/u;
// a host name or an IP address, as nodemailer takes it
const HOST = /^[A-Za-z0-9._:[\]-]+$/u;
// a line break in a header value would start a header of the sender's choosing
const CONTROL = /[\x00-\x1f\x7f]/u;

/**
 * Whether `value` is one email address `local@domain` (at most 254 characters, no spaces, control characters or
 * display name), as `email.address` must be.
 *
 * @param value - The text.
 * @returns `true` for one plain address.
 *
 * @example
 * ```ts
 * isPlainEmailAddress('noreply@example.com'); // true
 * isPlainEmailAddress('Gatehouse <noreply@example.com>'); // false
 * ```
 */
export function isPlainEmailAddress(value: string): boolean {
  return typeof value === 'string' && value.length <= 254 && EMAIL_ADDRESS.test(value);
}

function readText(ctx: Context, segments: Segments, value: unknown, pattern: RegExp | null, hint: string): string | undefined {
  const path = formatPath(segments);
  if (typeof value !== 'string') {
    wrongType(ctx, segments, 'string', value, path);
    return undefined;
  }
  if (value === '') {
    report(ctx, segments, { code: 'empty_value' }, `${path} must not be empty.`);
    return undefined;
  }
  if (pattern !== null && !pattern.test(value)) {
    report(ctx, segments, { code: 'invalid_email_setting', value }, `${path} is ${JSON.stringify(value)}: ${hint}.`);
    return undefined;
  }
  return value;
}

function readPort(ctx: Context, value: unknown): number | undefined {
  const segments = ['email.smtp', 'port'];
  if (typeof value !== 'number') {
    wrongType(ctx, segments, 'number', value, 'email.smtp.port');
    return undefined;
  }
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    report(ctx, segments, { code: 'invalid_email_setting', value: String(value) }, `email.smtp.port is ${String(value)}: it must be a whole number from 1 to 65535 (587 for submission).`);
    return undefined;
  }
  return value;
}

function readAuthentication(ctx: Context, value: unknown): SmtpAuthentication | undefined {
  const segments = ['email.smtp', 'authentication'];
  if (typeof value !== 'string') {
    wrongType(ctx, segments, 'string', value, 'email.smtp.authentication');
    return undefined;
  }
  const known = SMTP_AUTHENTICATIONS.find((a) => a === value);
  if (known !== undefined) return known;
  const suggestion = nearest(value, SMTP_AUTHENTICATIONS);
  report(
    ctx,
    segments,
    { code: 'invalid_email_setting', value },
    `email.smtp.authentication is ${JSON.stringify(value)}: it must be "none", "PLAIN" or "CRAM-MD5"${suggestion === null ? '' : `; did you mean "${suggestion}"?`}.`,
  );
  return undefined;
}

function requireField(ctx: Context, field: string, why: string): undefined {
  report(ctx, ['email.smtp', field], { code: 'missing_field', fields: [field] }, `email.smtp is missing the required field "${field}"${why}.`);
  return undefined;
}

function readSmtp(ctx: Context, value: unknown): SmtpConfiguration | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) {
    wrongType(ctx, ['email.smtp'], 'object', value, 'email.smtp');
    return null;
  }
  const before = ctx.problems.length;
  for (const key of Object.keys(value)) {
    if (SMTP_FIELDS.some((f) => f === key)) continue;
    const suggestion = nearest(key, SMTP_FIELDS);
    report(
      ctx,
      ['email.smtp', key],
      { code: 'unknown_field', field: key, suggestion },
      `email.smtp has unknown field ${JSON.stringify(key)}${suggestion === null ? '' : `; did you mean "${suggestion}"?`}`,
    );
  }
  const raw = (key: string): unknown => ownField(value, key);
  const host = raw('host') === undefined ? requireField(ctx, 'host', ' (the relay\'s host name)') : readText(ctx, ['email.smtp', 'host'], raw('host'), HOST, 'it must be a host name or an IP address');
  const port = raw('port') === undefined ? requireField(ctx, 'port', ' (587 for submission, 25 for a relay)') : readPort(ctx, raw('port'));
  const authentication =
    raw('authentication') === undefined ? requireField(ctx, 'authentication', ' ("none", "PLAIN" or "CRAM-MD5")') : readAuthentication(ctx, raw('authentication'));
  const username = raw('username') === undefined ? undefined : readText(ctx, ['email.smtp', 'username'], raw('username'), null, '');
  const password = raw('password') === undefined ? undefined : readText(ctx, ['email.smtp', 'password'], raw('password'), null, '');
  if (authentication !== undefined && authentication !== 'none') {
    const why = ` (authentication "${authentication}" needs it)`;
    if (raw('username') === undefined) requireField(ctx, 'username', why);
    if (raw('password') === undefined) requireField(ctx, 'password', why);
  }
  const domain = raw('domain') === undefined ? undefined : readText(ctx, ['email.smtp', 'domain'], raw('domain'), HOST, 'it must be a host name (the name gatehouse gives in EHLO)');
  const rawVerify = raw('noVerifyTLS');
  let noVerifyTLS = false;
  if (typeof rawVerify === 'boolean') noVerifyTLS = rawVerify;
  else if (rawVerify !== undefined) wrongType(ctx, ['email.smtp', 'noVerifyTLS'], 'boolean', rawVerify, 'email.smtp.noVerifyTLS');
  if (ctx.problems.length > before || host === undefined || port === undefined || authentication === undefined) return null;
  const credentials = authentication === 'none' ? {} : { ...optional('username', username), ...optional('password', password) };
  return { host, port, ...credentials, authentication, ...optional('domain', domain), noVerifyTLS };
}

/**
 * Reads `email.smtp`, `email.address` and `email.senderName` from the site configuration's top level. Problems go
 * to `ctx` with their paths: an unknown field of `email.smtp` (with a suggestion), a missing `host`, `port` or
 * `authentication`, a missing `username` or `password` when `authentication` is `PLAIN` or `CRAM-MD5`, a port out of
 * range, an `email.address` that is not one plain address (`email.address` is required with `email.smtp`), and a
 * `email.senderName` with a line break (it goes into a header).
 *
 * @param ctx - Where problems go.
 * @param root - The site configuration object.
 * @returns The mail options ({@link EMAIL_OFF} when none is set).
 *
 * @internal
 */
export function readEmail(ctx: Context, root: Readonly<Record<string, unknown>>): EmailConfiguration {
  const smtp = readSmtp(ctx, ownField(root, 'email.smtp'));
  const rawAddress = ownField(root, 'email.address');
  let address: string | null = null;
  if (rawAddress !== undefined) {
    address = readText(ctx, ['email.address'], rawAddress, EMAIL_ADDRESS, 'it must be one address such as "noreply@example.com" (the name goes in email.senderName)') ?? null;
    if (address !== null && address.length > 254) {
      report(ctx, ['email.address'], { code: 'invalid_email_setting', value: address }, 'email.address has more than 254 characters.');
      address = null;
    }
  } else if (ownField(root, 'email.smtp') !== undefined && ownField(root, 'email.smtp') !== null) {
    report(ctx, ['email.address'], { code: 'missing_field', fields: ['email.address'] }, 'email.smtp is set but email.address (the sender, such as "noreply@example.com") is not.');
  }
  const rawName = ownField(root, 'email.senderName');
  let senderName = DEFAULT_EMAIL_SENDER_NAME;
  if (rawName !== undefined) {
    const name = readText(ctx, ['email.senderName'], rawName, null, '');
    if (name !== undefined && CONTROL.test(name)) {
      report(ctx, ['email.senderName'], { code: 'invalid_email_setting', value: name }, 'email.senderName must be one line (no control characters).');
    } else if (name !== undefined) senderName = name;
  }
  return { smtp, address, senderName };
}
