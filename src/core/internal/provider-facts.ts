/**
 * What gating and linking need to know about a provider entry, read defensively from a value that
 * should be an `AuthProvider`.
 *
 * @internal
 * @module
 */
import { err, ok, Result, safeTry } from 'neverthrow';
import { match } from 'ts-pattern';
import { PROVIDER_TYPES, type ProviderType } from '../auth-providers.js';
import { asciiLowercase } from './email-address.js';
import {
  type FieldProblem,
  isObject,
  isParsed,
  markParsed,
  ownField,
  readBoolean,
  readOptionalString,
  readOptionalStringArray,
  readRecord,
  readString,
  readStringArray,
} from './guard.js';

/**
 * A team an `allowOrgsMap` entry admits.
 *
 * @internal
 */
export interface ListedTeam {
  /** The organisation, ASCII-lowercased (organisation names are case-insensitive). */
  readonly org: string;
  /** The team's display name, exactly as configured (compared case-sensitively). */
  readonly name: string;
}

/**
 * The membership rule of a provider entry.
 *
 * @internal
 */
export type Gate =
  /** No membership rule: anyone the provider authenticates passes. */
  | { readonly kind: 'none' }
  /** `hosta` with a non-empty `allowOrgs` or an `allowOrgsMap` that lists a team. */
  | { readonly kind: 'orgs_and_teams'; readonly orgs: readonly string[]; readonly teams: readonly ListedTeam[] }
  /** `hostb` with a non-empty `allowGroups`. */
  | { readonly kind: 'groups'; readonly paths: readonly string[] }
  /** `openidconnect` with `requireEmailDomain`. */
  | { readonly kind: 'email_domain'; readonly domain: string };

/**
 * The facts of one provider entry.
 *
 * @internal
 */
export interface ProviderFacts {
  /** The provider type. */
  readonly type: ProviderType;
  /** Whether sign-up is allowed (defaults already applied by the site configuration). */
  readonly allowSignup: boolean;
  /** The namespace of the provider's account IDs (see `externalAccountServiceId`). */
  readonly serviceId: string;
  /** The membership rule. */
  readonly gate: Gate;
}

/**
 * Whether `value` is one of the provider types (`PROVIDER_TYPES`).
 *
 * @param value - Anything.
 * @returns `true` for a known provider type.
 * @internal
 * @example
 * ```ts
 * isProviderType('hostb'); // true
 * isProviderType('github'); // false
 * ```
 */
export function isProviderType(value: unknown): value is ProviderType {
  return PROVIDER_TYPES.some((type) => type === value);
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}

function readAllowOrgsMap(provider: object): Result<readonly ListedTeam[], FieldProblem> {
  const map = ownField(provider, 'allowOrgsMap');
  if (map === undefined) return ok([]);
  return readRecord(map, 'allowOrgsMap').andThen((record) => {
    const teams: ListedTeam[] = [];
    for (const org of Object.keys(record)) {
      const names = readStringArray(ownField(record, org), `allowOrgsMap[${JSON.stringify(org)}]`);
      if (names.isErr()) return err(names.error);
      for (const name of names.value) teams.push({ org: asciiLowercase(org), name });
    }
    return ok(teams);
  });
}

function hostaGate(provider: object): Result<Gate, FieldProblem> {
  return safeTry(function* () {
    const orgs = (yield* readOptionalStringArray(provider, '', 'allowOrgs')) ?? [];
    const teams = yield* readAllowOrgsMap(provider);
    const gate: Gate =
      orgs.length === 0 && teams.length === 0
        ? { kind: 'none' }
        : { kind: 'orgs_and_teams', orgs: orgs.map(asciiLowercase), teams };
    return ok(gate);
  });
}

function hostbGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalStringArray(provider, '', 'allowGroups').map(
    (paths): Gate => (paths === undefined || paths.length === 0 ? { kind: 'none' } : { kind: 'groups', paths }),
  );
}

function openIdConnectGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalString(provider, '', 'requireEmailDomain', true).map(
    (domain): Gate => (domain === undefined ? { kind: 'none' } : { kind: 'email_domain', domain: asciiLowercase(domain) }),
  );
}

const NO_GATE: Result<Gate, FieldProblem> = ok({ kind: 'none' });

function urlServiceId(provider: object, key: string, optional: boolean): Result<string, FieldProblem> {
  return (optional ? readOptionalString(provider, '', key, false) : readString(provider, '', key, false)).map((url) =>
    withoutTrailingSlashes(url ?? ''),
  );
}

/**
 * Reads the facts gating and linking need from a value that should be an `AuthProvider`. Only the
 * fields used are checked: `type`, `allowSignup`, the membership fields and the field that names
 * the provider's account namespace (`url`, `issuer` or `entryPoint`).
 *
 * @param value - A candidate provider entry.
 * @returns The facts, or `err` naming the first bad field.
 * @internal
 * @example
 * ```ts
 * readProviderFacts({ type: 'openidconnect', issuer: 'https://id.example.com/', allowSignup: true, requireEmailDomain: 'Example.com' });
 * // ok({ type: 'openidconnect', allowSignup: true, serviceId: 'https://id.example.com',
 * //      gate: { kind: 'email_domain', domain: 'example.com' } })
 * ```
 */
export function readProviderFacts(value: unknown): Result<ProviderFacts, FieldProblem> {
  // A provider entry parseSiteConfiguration produced is frozen, so its facts are read once and kept.
  if (!isParsed(value, 'provider') || !isObject(value)) return readFacts(value);
  const known = FACTS.get(value);
  if (known !== undefined) return ok(known);
  return readFacts(value).map((facts) => {
    FACTS.set(value, markParsed('provider_facts', facts));
    return facts;
  });
}

/** The facts of parsed provider entries, computed once per entry. */
const FACTS = new WeakMap<object, ProviderFacts>();

function readFacts(value: unknown): Result<ProviderFacts, FieldProblem> {
  if (!isObject(value) || Array.isArray(value)) return err({ path: '', expected: 'object' });
  const provider = value;
  const type = ownField(provider, 'type');
  if (!isProviderType(type)) return err({ path: 'type', expected: `one of ${PROVIDER_TYPES.join(', ')}` });
  return safeTry(function* () {
    const allowSignup = yield* readBoolean(provider, '', 'allowSignup');
    const [serviceId, gate] = yield* match(type)
      .returnType<Result<readonly [string, Gate], FieldProblem>>()
      .with('hosta', () => Result.combine([urlServiceId(provider, 'url', false), hostaGate(provider)] as const))
      .with('hostb', () => Result.combine([urlServiceId(provider, 'url', false), hostbGate(provider)] as const))
      .with('hostccloud', () => Result.combine([urlServiceId(provider, 'url', true), NO_GATE] as const))
      .with('hostcserver', 'reviewhost', () => Result.combine([urlServiceId(provider, 'url', false), NO_GATE] as const))
      .with('openidconnect', () =>
        Result.combine([urlServiceId(provider, 'issuer', false), openIdConnectGate(provider)] as const),
      )
      .with('saml', () => Result.combine([urlServiceId(provider, 'entryPoint', false), NO_GATE] as const))
      .with('builtin', 'http-header', () => Result.combine([ok(''), NO_GATE] as const))
      .exhaustive();
    const facts: ProviderFacts = { type, allowSignup, serviceId, gate };
    return ok(facts);
  });
}
