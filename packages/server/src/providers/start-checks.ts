/**
 * What a person starting gatehouse must know before a sign-in fails: whether `externalURL` points somewhere else
 * than the listening address (callbacks would go there), the callback address to register at each provider
 * (spec §4 endpoint table, §5.3), and why a configured provider cannot be used.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { AuthProvider, CodeHostProvider, ProviderType, SiteConfiguration } from 'gatehouse-auth';
import { CODE_HOST_PROVIDER_TYPES, callbackUrl, reviewhostMatchesConnection } from 'gatehouse-auth';

/** Whether a provider is one of the core's code host types. */
const isCodeHost = (p: AuthProvider): p is CodeHostProvider => (CODE_HOST_PROVIDER_TYPES as readonly ProviderType[]).includes(p.type);
import type { LogEntry } from '../kernel/logging.js';
import { codeHostBase } from './code-hosts.js';
import type { PublicCodeHostURLs } from './code-hosts.js';

/**
 * What {@link checkStart} looks at.
 *
 * @example
 * ```ts
 * const input: StartCheckInput = { configuration, listeningURL: 'http://127.0.0.1:3080', publicURLs: DEFAULT_PUBLIC_CODE_HOST_URLS };
 * ```
 */
export interface StartCheckInput {
  /** The site configuration in use. */
  readonly configuration: SiteConfiguration;
  /** The address the server listens on, such as `http://127.0.0.1:3080`. */
  readonly listeningURL: string;
  /** The public code host addresses in use for `hosta`/`hostccloud` entries with an empty `url`. */
  readonly publicURLs: PublicCodeHostURLs;
}

const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const WILDCARD: ReadonlySet<string> = new Set(['0.0.0.0', '[::]', '::']);

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Whether `externalURL` reaches the server at its listening address: same scheme and port, and the same host
 * (any loopback name for a loopback listener; any host for a wildcard listener).
 *
 * @param externalURL - The configured public address.
 * @param listeningURL - The listening address.
 * @returns `true` when they agree.
 *
 * @example
 * ```ts
 * externalMatchesListening('http://localhost:3080', 'http://127.0.0.1:3080'); // true
 * externalMatchesListening('http://localhost:3080', 'http://127.0.0.1:8080'); // false
 * ```
 */
export function externalMatchesListening(externalURL: string, listeningURL: string): boolean {
  const external = parse(externalURL);
  const listening = parse(listeningURL);
  if (external === null || listening === null) return false;
  const port = (u: URL): string => u.port || (u.protocol === 'https:' ? '443' : '80');
  if (external.protocol !== listening.protocol || port(external) !== port(listening)) return false;
  if (WILDCARD.has(listening.hostname)) return true;
  if (LOOPBACK.has(listening.hostname) && LOOPBACK.has(external.hostname)) return true;
  return external.hostname === listening.hostname;
}

/**
 * The start-time report: a warning when `externalURL` differs from the listening address, one line per provider
 * with the callback address to register at it, and one line per provider that cannot be used saying why.
 *
 * @param input - Configuration, listening address, public code host addresses.
 * @returns Log entries: `external_url_mismatch` (warn), `provider_callback` (info), `provider_public_url` (info),
 *   `provider_unusable` (warn).
 *
 * @example
 * ```ts
 * for (const entry of checkStart({ configuration, listeningURL: url, publicURLs })) log(entry);
 * ```
 */
export function checkStart(input: StartCheckInput): readonly LogEntry[] {
  const { configuration, listeningURL, publicURLs } = input;
  const entries: LogEntry[] = [];
  const external = configuration.externalURL;
  if (external !== undefined && !externalMatchesListening(external, listeningURL)) {
    entries.push({
      level: 'warn',
      event: 'external_url_mismatch',
      externalURL: external,
      listening: listeningURL,
      message:
        `externalURL ${external} is not the address this server listens on (${listeningURL}): providers send people back to ` +
        `${external}. Unless a proxy forwards that address here, set externalURL to this server's public address, or ` +
        'remove it to follow the listening address.',
    });
  }
  const base = external ?? listeningURL;
  // the server's default code host connections: the non-empty `url`s of the code host providers
  const connections = configuration.authProviders.flatMap((p) =>
    isCodeHost(p) && p.url !== undefined && p.url !== ''
      ? [p.url]
      : [],
  );
  configuration.authProviders.forEach((provider, index) => {
    const name = `auth.providers[${index}] (${provider.type})`;
    const callback = callbackUrl(provider, base);
    if (callback.isOk()) {
      entries.push({
        level: 'info',
        event: 'provider_callback',
        provider: provider.type,
        index,
        callbackURL: callback.value,
        message: `${name}: register ${callback.value} as the callback address at the provider`,
      });
    }
    const unusable = whyUnusable(provider, publicURLs, connections);
    if (unusable !== null) {
      entries.push({ level: 'warn', event: 'provider_unusable', provider: provider.type, index, message: `${name} cannot be used: ${unusable}` });
    }
    const defaulted = publicEdition(provider, publicURLs);
    if (defaulted !== null) {
      entries.push({
        level: 'info',
        event: 'provider_public_url',
        provider: provider.type,
        index,
        url: defaulted,
        message: `${name} has no url: it uses the public edition at ${defaulted}`,
      });
    }
  });
  return entries;
}

/** The public edition address a `hosta`/`hostccloud` entry without `url` uses, or `null`. */
function publicEdition(provider: AuthProvider, publicURLs: PublicCodeHostURLs): string | null {
  if (provider.type === 'hosta' && provider.url === '') return publicURLs.hosta ?? null;
  if (provider.type === 'hostccloud' && (provider.url === undefined || provider.url === '')) return publicURLs.hostccloud ?? null;
  return null;
}

/** Why a provider cannot be used, or `null`. */
function whyUnusable(provider: AuthProvider, publicURLs: PublicCodeHostURLs, connections: readonly string[]): string | null {
  return match(provider)
    .returnType<string | null>()
    .with({ type: 'hosta' }, { type: 'hostccloud' }, (p) =>
      codeHostBase(p, publicURLs) === null
        ? `its url is empty, so it needs the public ${p.type} address (publicCodeHostURLs.${p.type}, or GATEHOUSE_${p.type.toUpperCase()}_URL)`
        : null,
    )
    .with({ type: 'reviewhost' }, (p) =>
      reviewhostMatchesConnection(p, connections).unwrapOr(false)
        ? null
        : `its url ${p.url} matches no code host connection, so the Account security page never offers it (spec §2.5)`,
    )
    .with({ type: 'hostb' }, { type: 'hostcserver' }, { type: 'builtin' }, { type: 'openidconnect' }, { type: 'http-header' }, { type: 'saml' }, () => null)
    .exhaustive();
}
