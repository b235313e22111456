/**
 * What gating and linking need to know about a provider entry, read defensively from a value that
 * should be an `AuthProvider`.
 *
 * @internal
 * @module
 */
import { err, ok, Result, safeTry } from 'neverthrow';
import { PROVIDER_TYPES, type ProviderType } from '../auth-providers.js';
import {
  type FieldProblem,
  isObject,
  isParsed,
  markParsed,
  ownField,
  readBoolean,
  readOptionalString,
  readString,
} from './guard.js';
import { PROVIDER_SPECS } from '../providers/index.js';
import type { Gate, ServiceIdField } from '../providers/spec.js';

export type { Gate, ListedTeam } from '../providers/spec.js';

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

/** The account namespace: the value of the type's namespace field without trailing slashes (`''` when it has none). */
function serviceIdOf(provider: object, field: ServiceIdField | null): Result<string, FieldProblem> {
  if (field === null) return ok('');
  const read = field.optional ? readOptionalString(provider, '', field.key, false) : readString(provider, '', field.key, false);
  return read.map((url) => withoutTrailingSlashes(url ?? ''));
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
    const spec = PROVIDER_SPECS[type];
    const serviceId = yield* serviceIdOf(provider, spec.serviceId);
    const gate = yield* spec.gate(provider);
    const facts: ProviderFacts = { type, allowSignup, serviceId, gate };
    return ok(facts);
  });
}
