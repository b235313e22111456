/**
 * A test SAML identity provider: reads the SP's AuthnRequest from the redirect URL and mints responses whose
 * assertion is signed (xml-crypto, exclusive c14n, RSA-SHA256) with a test key.
 */
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

export const IDP_ENTITY_ID = 'https://idp.test.invalid/metadata';
export const IDP_ENTRY_POINT = 'https://idp.test.invalid/sso';

/** The `ID` of the AuthnRequest carried (deflated, base64) in a redirect-binding URL. */
export function authnRequestId(redirectURL: URL): string {
  const xml = inflateRawSync(Buffer.from(redirectURL.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (id === undefined) throw new Error(`no ID in ${xml}`);
  return id;
}

export interface ResponseOptions {
  readonly inResponseTo: string;
  readonly recipient: string;
  readonly audience: string;
  readonly nameID: string;
  readonly email?: string;
  readonly username?: string;
  /** Private key that signs the assertion, or `null` for an unsigned response. */
  readonly signWith: string | null;
  readonly now?: Date;
}

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export function samlResponseXml(o: ResponseOptions): string {
  const now = o.now ?? new Date();
  const instant = now.toISOString();
  const before = new Date(now.getTime() - 60_000).toISOString();
  const after = new Date(now.getTime() + 300_000).toISOString();
  const attributes = [
    ...(o.email === undefined ? [] : [['email', o.email]]),
    ...(o.username === undefined ? [] : [['username', o.username]]),
  ]
    .map(([name, value]) => `<saml:Attribute Name="${name}"><saml:AttributeValue>${escape(value ?? '')}</saml:AttributeValue></saml:Attribute>`)
    .join('');
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
    `ID="_resp${now.getTime()}" Version="2.0" IssueInstant="${instant}" Destination="${escape(o.recipient)}" InResponseTo="${escape(o.inResponseTo)}">` +
    `<saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="_assert${now.getTime()}" Version="2.0" IssueInstant="${instant}">` +
    `<saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${escape(o.nameID)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData InResponseTo="${escape(o.inResponseTo)}" NotOnOrAfter="${after}" Recipient="${escape(o.recipient)}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${before}" NotOnOrAfter="${after}"><saml:AudienceRestriction><saml:Audience>${escape(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${instant}" SessionIndex="_session"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes === '' ? '' : `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`) +
    `</saml:Assertion></samlp:Response>`;
  if (o.signWith === null) return xml;
  const sig = new SignedXml({ privateKey: o.signWith });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  sig.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
  sig.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
  sig.computeSignature(xml, {
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
  });
  return sig.getSignedXml();
}

export const b64 = (xml: string): string => Buffer.from(xml, 'utf8').toString('base64');
