/**
 * Who an audit entry names when a request acts through `token-sudo` (spec §5.1 rule 2): the token's owner is the
 * real actor, and the account acted as is recorded beside it.
 *
 * @module
 */
import type { Viewer } from './schema.js';
import type { AuditEvent } from '../store/types.js';

/**
 * Attributes an entry written while serving `viewer`: under `token-sudo` the actor is the token's owner and
 * `impersonatedUserId` the account acted as, whatever the writer put there; other viewers' entries are unchanged.
 *
 * @param viewer - Who the request acts as.
 * @param entry - The entry as the resolver wrote it (its actor the effective account).
 * @returns The entry to store.
 *
 * @example
 * ```ts
 * attributeAuditEntry({ kind: 'user', user: alice, actor: root, via: 'token-sudo' }, { ...entry, actorUserId: alice.id });
 * // { ...entry, actorUserId: root.id, impersonatedUserId: alice.id }
 * ```
 */
export function attributeAuditEntry(viewer: Viewer, entry: AuditEvent): AuditEvent {
  if (viewer.kind !== 'user' || viewer.via !== 'token-sudo') return entry;
  return { ...entry, actorUserId: viewer.actor.id, impersonatedUserId: viewer.user.id };
}
