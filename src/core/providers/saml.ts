/**
 * A SAML identity provider (spec §2.5, §5.2): the assertion consumer service at `/.auth/saml/acs`, the account
 * namespace named by `entryPoint`, sign-up on by default, no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { AuthProvider } from '../auth-providers.js';
import { type CommonFields, type EntryScope, optional, readConfigId, readString, readUrl } from '../site-configuration/fields.js';
import type { ProviderSpec } from './spec.js';

/** Reads and checks the fields of one `saml` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readSamlEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const configID = readConfigId(scope);
  const entryPoint = readUrl(scope, 'entryPoint', { required: true, allowEmpty: false, allowQuery: true });
  const idpCertificate = readString(scope, 'idpCertificate', {
    required: true,
    allowEmpty: false,
    hint: " (the identity provider's signing certificate)",
  });
  const issuer = readString(scope, 'serviceProviderIssuer', { required: false, allowEmpty: false });
  if (entryPoint === undefined || idpCertificate === undefined) return null;
  return {
    type: 'saml',
    ...common,
    ...configID,
    entryPoint,
    idpCertificate,
    ...optional('serviceProviderIssuer', issuer),
  };
}

/** The `saml` provider type. */
export const SAML: ProviderSpec<'saml'> = {
  type: 'saml',
  fields: ['configID', 'entryPoint', 'idpCertificate', 'serviceProviderIssuer'],
  defaultAllowSignup: true,
  serviceId: { key: 'entryPoint', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/saml/acs',
  readEntry: readSamlEntry,
  scopes: null,
};
