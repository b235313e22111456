/**
 * Account links and the mail outbox on PostgreSQL. A link is made by one upsert on (account, purpose), so a new
 * link replaces the earlier one atomically; it is consumed under a row lock (`SELECT … FOR UPDATE`), so among
 * instances racing for one link exactly one gets it. Outbox rows are claimed with `FOR UPDATE SKIP LOCKED` and a
 * `claimed_until` lease, so senders on several instances never take the same mail; the queue's bound is checked
 * under a transaction-scoped advisory lock, so concurrent enqueues cannot overshoot it.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { ACCOUNT_LINK_PURPOSES, decideAccountLinkUse, decideMailEnqueue } from 'gatehouse-auth';
import type { AccountLinkPurpose } from 'gatehouse-auth';
import type { AccountLinkRecord, AccountLinkRefusal, AccountLinkStore, OutboxMail, OutboxRefusal, OutboxStore } from '../lifecycle-types.js';
import type { SqlRow } from './driver.js';
import { bound, dbId, num, numOrNull, text, textOrNull } from './rows.js';
import type { Sql } from './sql.js';

const LINK_COLUMNS = 'id, purpose, account_id, email, digest, created_at, expires_at, used_at';
const MAIL_COLUMNS = 'id, recipient, subject, body, created_at, attempts, next_attempt_at, claimed_until, last_error';
// the advisory lock key that serializes enqueues (any constant; this one reads "gh-outbx")
const OUTBOX_LOCK = 0x67682d6f7574_6278 % 2 ** 31;

function purposeOf(value: string): AccountLinkPurpose {
  return ACCOUNT_LINK_PURPOSES.find((p) => p === value) ?? 'verify_email';
}

function linkOf(row: SqlRow): AccountLinkRecord {
  return {
    id: text(row, 'id'),
    purpose: purposeOf(text(row, 'purpose')),
    userId: text(row, 'account_id'),
    email: textOrNull(row, 'email'),
    digest: text(row, 'digest'),
    createdAt: num(row, 'created_at'),
    expiresAt: num(row, 'expires_at'),
    usedAt: numOrNull(row, 'used_at'),
  };
}

function mailOf(row: SqlRow): OutboxMail {
  return {
    id: text(row, 'id'),
    to: text(row, 'recipient'),
    subject: text(row, 'subject'),
    text: text(row, 'body'),
    createdAt: num(row, 'created_at'),
    attempts: num(row, 'attempts'),
    nextAttemptAt: num(row, 'next_attempt_at'),
    claimedUntil: num(row, 'claimed_until'),
    lastError: textOrNull(row, 'last_error'),
  };
}

const byId = (a: OutboxMail, b: OutboxMail): number => Number(a.id) - Number(b.id);

/**
 * The account-link part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link AccountLinkStore}.
 * @example
 * ```ts
 * const links = postgresLinks(rootSql(driver));
 * await links.consume('verify_email', digest, Date.now()); // the link for one caller, link_used for the others
 * ```
 */
export function postgresLinks(sql: Sql): AccountLinkStore {
  return {
    create: async (input) => {
      const id = dbId(input.userId);
      if (id === null) return err({ code: 'unknown_user', userId: input.userId });
      const inserted = await sql.attempt(
        `INSERT INTO account_links (purpose, account_id, email, digest, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, purpose) DO UPDATE
           SET email = EXCLUDED.email, digest = EXCLUDED.digest, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, used_at = NULL
         RETURNING ${LINK_COLUMNS}`,
        [input.purpose, id, input.email, input.digest, input.createdAt, input.expiresAt],
      );
      if (inserted.isErr()) {
        return inserted.error.kind === 'foreign_key' ? err({ code: 'unknown_user', userId: input.userId }) : err({ code: 'duplicate_digest' });
      }
      const [row] = inserted.value;
      return row === undefined ? err({ code: 'unknown_user', userId: input.userId }) : ok(linkOf(row));
    },
    consume: (purpose, digest, now) =>
      sql.atomic(async (tx): Promise<Result<AccountLinkRecord, AccountLinkRefusal>> => {
        // the row lock makes concurrent consumers wait, and the second one then reads the row as the first left it
        const [row] = await tx.query(`SELECT ${LINK_COLUMNS} FROM account_links WHERE digest = $1 FOR UPDATE`, [digest]);
        const link = row === undefined ? null : linkOf(row);
        const decided = decideAccountLinkUse(link, purpose, now);
        if (decided.isErr() || link === null) return err({ code: 'unknown_link' });
        if (decided.value.kind === 'refused') return err({ code: decided.value.reason });
        const [used] = await tx.query(`UPDATE account_links SET used_at = $2 WHERE id = $1 RETURNING ${LINK_COLUMNS}`, [link.id, now]);
        return used === undefined ? err({ code: 'unknown_link' }) : ok(linkOf(used));
      }),
    findByDigest: async (digest) => {
      const [row] = await sql.query(`SELECT ${LINK_COLUMNS} FROM account_links WHERE digest = $1`, [digest]);
      return row === undefined ? null : linkOf(row);
    },
    find: async (userId, purpose) => {
      const id = dbId(userId);
      if (id === null) return null;
      const [row] = await sql.query(`SELECT ${LINK_COLUMNS} FROM account_links WHERE account_id = $1 AND purpose = $2`, [id, purpose]);
      return row === undefined ? null : linkOf(row);
    },
    purgeExpired: async (expiredBy, limit) => {
      const n = bound(limit);
      if (n === 0) return 0;
      const rows = await sql.query(
        'DELETE FROM account_links WHERE id IN (SELECT id FROM account_links WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1',
        [expiredBy, n],
      );
      return rows.length;
    },
  };
}

/**
 * The outbox part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link OutboxStore}.
 * @example
 * ```ts
 * const outbox = postgresOutbox(rootSql(driver));
 * await outbox.claim(Date.now(), 60_000, 10); // due mails no other sender holds
 * ```
 */
export function postgresOutbox(sql: Sql): OutboxStore {
  return {
    enqueue: (mail, capacity) =>
      sql.atomic(async (tx): Promise<Result<OutboxMail, OutboxRefusal>> => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [OUTBOX_LOCK]);
        const [counted] = await tx.query('SELECT count(*) AS n FROM mail_outbox');
        const queued = counted === undefined ? 0 : num(counted, 'n');
        const decided = decideMailEnqueue(queued, Math.max(1, Math.floor(capacity)));
        if (decided.isErr() || decided.value.kind === 'refuse') return err({ code: 'outbox_full', queued });
        const [row] = await tx.query(
          `INSERT INTO mail_outbox (recipient, subject, body, created_at, next_attempt_at) VALUES ($1, $2, $3, $4, $4) RETURNING ${MAIL_COLUMNS}`,
          [mail.to, mail.subject, mail.text, mail.createdAt],
        );
        return row === undefined ? err({ code: 'outbox_full', queued }) : ok(mailOf(row));
      }),
    claim: async (now, leaseMs, limit) => {
      const n = bound(limit);
      if (n === 0) return [];
      const rows = await sql.query(
        `UPDATE mail_outbox SET claimed_until = $2, attempts = attempts + 1
         WHERE id IN (SELECT id FROM mail_outbox WHERE next_attempt_at <= $1 AND claimed_until <= $1 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING ${MAIL_COLUMNS}`,
        [now, now + Math.max(1, leaseMs), n],
      );
      return rows.map(mailOf).sort(byId);
    },
    delete: async (id) => {
      const key = dbId(id);
      if (key === null) return false;
      const rows = await sql.query('DELETE FROM mail_outbox WHERE id = $1 RETURNING 1', [key]);
      return rows.length > 0;
    },
    retryLater: async (id, nextAttemptAt, error) => {
      const key = dbId(id);
      if (key === null) return false;
      const rows = await sql.query('UPDATE mail_outbox SET next_attempt_at = $2, claimed_until = 0, last_error = $3 WHERE id = $1 RETURNING 1', [key, nextAttemptAt, error]);
      return rows.length > 0;
    },
    release: async (id, nextAttemptAt, reason) => {
      const key = dbId(id);
      if (key === null) return false;
      const rows = await sql.query(
        'UPDATE mail_outbox SET attempts = GREATEST(0, attempts - 1), next_attempt_at = $2, claimed_until = 0, last_error = $3 WHERE id = $1 RETURNING 1',
        [key, nextAttemptAt, reason],
      );
      return rows.length > 0;
    },
    count: async () => {
      const [row] = await sql.query('SELECT count(*) AS n FROM mail_outbox');
      return row === undefined ? 0 : num(row, 'n');
    },
    list: async (limit) => {
      const n = bound(limit);
      if (n === 0) return [];
      const rows = await sql.query(`SELECT ${MAIL_COLUMNS} FROM mail_outbox ORDER BY id LIMIT $1`, [n]);
      return rows.map(mailOf);
    },
  };
}
