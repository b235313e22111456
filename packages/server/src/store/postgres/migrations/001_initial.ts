/**
 * Migration 1: the whole schema of the store. Every rule the store must keep under concurrent writers is a
 * constraint here, not only a check in code: one account per username key, one account per verified email match
 * key, one account per linked identity, one row per token, session and code digest, one app per client id, and
 * foreign keys that take an account's emails, links, credentials, tokens, sessions and OAuth grants with it.
 * Times are milliseconds since the epoch (`bigint`); lists of strings and the audit details are `jsonb`.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The initial schema.
 *
 * @example
 * ```ts
 * MIGRATION_001_INITIAL.version; // 1
 * ```
 */
export const MIGRATION_001_INITIAL: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username text NOT NULL,
  username_key text NOT NULL,
  origin text NOT NULL,
  site_admin boolean NOT NULL,
  service_account boolean NOT NULL,
  password_hash text,
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX accounts_username_key ON accounts (username_key);

-- verified_key is the email match key of a verified address (the first of equal ones on an account), else NULL:
-- an address may be verified on one account only (spec §5.4 rule 2)
CREATE TABLE account_emails (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  position integer NOT NULL,
  email text NOT NULL,
  verified boolean NOT NULL,
  verified_key text,
  PRIMARY KEY (account_id, position),
  CHECK (verified_key IS NULL OR verified)
);
CREATE UNIQUE INDEX account_emails_verified_key ON account_emails (verified_key) WHERE verified_key IS NOT NULL;

CREATE TABLE external_accounts (
  external_key text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  service_type text NOT NULL,
  service_id text NOT NULL,
  external_id text NOT NULL,
  created_at bigint NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX external_accounts_account ON external_accounts (account_id, seq);

CREATE TABLE provider_credentials (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  service_type text NOT NULL,
  service_id text NOT NULL,
  external_id text NOT NULL,
  sealed text NOT NULL,
  created_at bigint NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (account_id, service_type, service_id)
);

CREATE TABLE access_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  digest text NOT NULL,
  scopes jsonb NOT NULL,
  note text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint
);
CREATE UNIQUE INDEX access_tokens_digest ON access_tokens (digest);
CREATE INDEX access_tokens_account ON access_tokens (account_id, id);

CREATE TABLE sessions (
  digest text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX sessions_account ON sessions (account_id, created_at, seq);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE oauth_apps (
  client_id text PRIMARY KEY,
  client_secret_hash text NOT NULL,
  redirect_uris jsonb NOT NULL,
  scopes jsonb NOT NULL,
  name text NOT NULL,
  owner_user_id text NOT NULL,
  created_at bigint NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE oauth_authorization_codes (
  code_hash text PRIMARY KEY,
  family_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_apps (client_id) ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  redirect_uri_given boolean NOT NULL,
  scopes jsonb NOT NULL,
  code_challenge text NOT NULL,
  expires_at bigint NOT NULL,
  used boolean NOT NULL
);
CREATE INDEX oauth_authorization_codes_expiry ON oauth_authorization_codes (expires_at);
CREATE INDEX oauth_authorization_codes_family ON oauth_authorization_codes (family_id);

-- a family revoked once stays revoked (RFC 9700 §4.14.2): its tokens stop working, now and later
CREATE TABLE oauth_revoked_families (
  family_id text PRIMARY KEY
);

CREATE TABLE oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  family_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_apps (client_id) ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  scopes jsonb NOT NULL,
  expires_at bigint NOT NULL,
  used boolean NOT NULL
);
CREATE INDEX oauth_refresh_tokens_expiry ON oauth_refresh_tokens (expires_at);
CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens (family_id);

CREATE TABLE oauth_access_tokens (
  token_hash text PRIMARY KEY,
  family_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_apps (client_id) ON DELETE CASCADE,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  scopes jsonb NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX oauth_access_tokens_expiry ON oauth_access_tokens (expires_at);
CREATE INDEX oauth_access_tokens_family ON oauth_access_tokens (family_id);

-- the audit log outlives the accounts it names: its user ids are plain text, not foreign keys (spec §6)
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  timestamp bigint NOT NULL,
  entity text NOT NULL,
  action text NOT NULL,
  reason text,
  actor_user_id text,
  subject_user_id text,
  impersonated_user_id text,
  details jsonb NOT NULL,
  count integer NOT NULL,
  first_at bigint NOT NULL,
  last_at bigint NOT NULL,
  coalesce_key text
);
CREATE UNIQUE INDEX audit_log_coalesce_key ON audit_log (coalesce_key) WHERE coalesce_key IS NOT NULL;
CREATE INDEX audit_log_last_at ON audit_log (last_at);
CREATE INDEX audit_log_entity ON audit_log (entity, id);
CREATE INDEX audit_log_actor ON audit_log (actor_user_id, id);

-- flow state, SAML request ids and throttle counters; seq orders the entries of a kind by their last put
CREATE SEQUENCE ephemeral_order;
CREATE TABLE ephemeral (
  kind text NOT NULL,
  key text NOT NULL,
  grp text NOT NULL,
  value text NOT NULL,
  expires_at bigint NOT NULL,
  seq bigint NOT NULL DEFAULT nextval('ephemeral_order'),
  PRIMARY KEY (kind, key)
);
CREATE INDEX ephemeral_group ON ephemeral (kind, grp, seq);
CREATE INDEX ephemeral_expiry ON ephemeral (expires_at);
`,
};
