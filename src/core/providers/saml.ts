/**
 * A SAML identity provider (spec §2.5, §5.3 `saml`): the assertion consumer service at `/.auth/saml/acs`, the account
 * namespace named by `entryPoint`, sign-up on by default, no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `saml` provider type. */
export const SAML: ProviderSpec<'saml'> = {
  type: 'saml',
  fields: ['configID', 'entryPoint', 'idpCertificate', 'serviceProviderIssuer'],
  defaultAllowSignup: true,
  serviceId: { key: 'entryPoint', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/saml/acs',
  scopes: null,
};
