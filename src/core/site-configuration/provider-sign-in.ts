/**
 * The sign-in page fields of every `auth.providers` entry: `hidden`, `order`, `noSignIn`.
 *
 * @internal
 *
 * @module
 */
import { ownField } from '../internal/guard.js';
import type { ProviderSignInFields } from '../sign-in-offer.js';
import { at, type EntryScope, optional, readBoolean, wrongType } from './fields.js';
import { formatPath } from './problems.js';

/** The names of the fields, as entries may write them. */
export const SIGN_IN_FIELDS = ['hidden', 'order', 'noSignIn'] as const;

/** Reads `hidden`, `order` (a finite number) and `noSignIn` of an entry; a bad one is reported and left out. */
export function readSignInFields(scope: EntryScope): ProviderSignInFields {
  const order = ownField(scope.entry, 'order');
  let readOrder: number | undefined;
  if (order !== undefined) {
    if (typeof order === 'number' && Number.isFinite(order)) readOrder = order;
    else wrongType(scope.ctx, at(scope, 'order'), 'number', order, formatPath(at(scope, 'order')));
  }
  return {
    ...optional('hidden', readBoolean(scope, 'hidden')),
    ...optional('order', readOrder),
    ...optional('noSignIn', readBoolean(scope, 'noSignIn')),
  };
}
