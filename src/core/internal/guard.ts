/**
 * The one runtime guard of the core for values whose shape is only known at run time (identities, providers,
 * accounts, records the adapter passes in): own data fields only, getters never invoked, nothing throws. Readers
 * return a `Result` whose error names the field's path and what was expected; `invalidInput` turns that into the
 * core's one bad-input error shape `{ code: 'invalid_input', path, expected }`.
 *
 * @internal
 * @module
 */
import { err, ok, type Result } from 'neverthrow';

/**
 * Whether `value` is a non-null object (arrays included).
 *
 * @param value - Anything.
 * @returns `true` for objects and arrays.
 * @example
 * ```ts
 * isObject([]);   // true
 * isObject(null); // false
 * ```
 * @internal
 */
export function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * The value of an own data property of `value`, or `undefined` when `value` is not an object, has
 * no such own property, or the property is an accessor (getters are never invoked, so reading
 * cannot run foreign code or throw).
 *
 * @param value - Anything.
 * @param key - The property name.
 * @returns The own data property's value, or `undefined`.
 * @example
 * ```ts
 * ownField({ id: 'u1' }, 'id');                          // 'u1'
 * ownField(Object.create({ id: 'u1' }), 'id');           // undefined (inherited)
 * ownField({ get id() { return 'u1'; } }, 'id');         // undefined (a getter is never run)
 * ```
 * @internal
 */
export function ownField(value: unknown, key: string): unknown {
  if (!isObject(value)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  if (descriptor === undefined || !('value' in descriptor)) return undefined;
  const field: unknown = descriptor.value;
  return field;
}

/**
 * Whether `value` is a non-null object that is not an array (a JSON object, a record).
 *
 * @param value - Anything.
 * @returns `true` for plain objects.
 * @example
 * ```ts
 * isRecord({});  // true
 * isRecord([]);  // false
 * ```
 * @internal
 */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return isObject(value) && !Array.isArray(value);
}

/**
 * A field that does not have the expected shape.
 *
 * @internal
 */
export interface FieldProblem {
  /** Path of the field, for example `emails[0].verified` (`''` for the value itself). */
  readonly path: string;
  /** What the field should have been, for example `boolean` or `array of strings`. */
  readonly expected: string;
}

/**
 * Joins a parent path and a key.
 *
 * @param parent - The parent path (`''` for the root).
 * @param key - A property name.
 * @returns `parent.key`, or `key` at the root.
 * @internal
 * @example
 * ```ts
 * fieldPath('emails[0]', 'verified'); // 'emails[0].verified'
 * fieldPath('', 'accountId'); // 'accountId'
 * ```
 */
export function fieldPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/**
 * Checks that `value` is a non-null, non-array object.
 *
 * @param value - Anything.
 * @param path - The value's path, for the error.
 * @returns `ok(value)` or `err` expecting an object.
 * @internal
 * @example
 * ```ts
 * readRecord([], 'identity'); // err({ path: 'identity', expected: 'object' })
 * ```
 */
export function readRecord(value: unknown, path: string): Result<object, FieldProblem> {
  return isObject(value) && !Array.isArray(value) ? ok(value) : err({ path, expected: 'object' });
}

/**
 * Reads an own string field.
 *
 * @param value - The object.
 * @param parent - The object's path.
 * @param key - The field.
 * @param nonEmpty - Whether `''` is rejected.
 * @returns The string, or `err`.
 * @internal
 * @example
 * ```ts
 * readString({ id: '' }, 'account', 'id', true); // err({ path: 'account.id', expected: 'non-empty string' })
 * ```
 */
export function readString(value: object, parent: string, key: string, nonEmpty: boolean): Result<string, FieldProblem> {
  const field = ownField(value, key);
  if (typeof field === 'string' && (!nonEmpty || field !== '')) return ok(field);
  return err({ path: fieldPath(parent, key), expected: nonEmpty ? 'non-empty string' : 'string' });
}

/**
 * Reads an own optional string field (absent or `undefined` gives `undefined`).
 *
 * @param value - The object.
 * @param parent - The object's path.
 * @param key - The field.
 * @param nonEmpty - Whether `''` is rejected.
 * @returns The string or `undefined`, or `err`.
 * @internal
 * @example
 * ```ts
 * readOptionalString({}, '', 'requireEmailDomain', true); // ok(undefined)
 * ```
 */
export function readOptionalString(
  value: object,
  parent: string,
  key: string,
  nonEmpty: boolean,
): Result<string | undefined, FieldProblem> {
  return ownField(value, key) === undefined ? ok(undefined) : readString(value, parent, key, nonEmpty);
}

/**
 * Reads an own boolean field.
 *
 * @param value - The object.
 * @param parent - The object's path.
 * @param key - The field.
 * @returns The boolean, or `err`.
 * @internal
 * @example
 * ```ts
 * readBoolean({ verified: 'yes' }, 'emails[0]', 'verified'); // err({ path: 'emails[0].verified', expected: 'boolean' })
 * ```
 */
export function readBoolean(value: object, parent: string, key: string): Result<boolean, FieldProblem> {
  const field = ownField(value, key);
  return typeof field === 'boolean' ? ok(field) : err({ path: fieldPath(parent, key), expected: 'boolean' });
}

/**
 * Reads an array, checking each element with `readElement`; the first bad element is reported.
 *
 * @param value - Anything.
 * @param path - The array's path.
 * @param readElement - Reads one element given its path.
 * @returns A fresh array of the read elements, or `err`.
 * @internal
 * @example
 * ```ts
 * readArray([1, 'a'], 'levels', (v, p) => (typeof v === 'number' ? ok(v) : err({ path: p, expected: 'number' })));
 * // err({ path: 'levels[1]', expected: 'number' })
 * ```
 */
export function readArray<T>(
  value: unknown,
  path: string,
  readElement: (element: unknown, elementPath: string) => Result<T, FieldProblem>,
): Result<readonly T[], FieldProblem> {
  if (!Array.isArray(value)) return err({ path, expected: 'array' });
  const out: T[] = [];
  // Index loop over the array's own length: holes read as `undefined` and are rejected by readElement.
  const length: number = value.length;
  for (let i = 0; i < length; i++) {
    const elementPath = `${path}[${i}]`;
    const element = ownField(value, String(i));
    const read = readElement(element, elementPath);
    if (read.isErr()) return err(read.error);
    out.push(read.value);
  }
  return ok(out);
}

/**
 * Reads an array of strings.
 *
 * @param value - Anything.
 * @param path - The array's path.
 * @returns A fresh array, or `err`.
 * @internal
 * @example
 * ```ts
 * readStringArray(['acme', 7], 'allowOrgs'); // err({ path: 'allowOrgs[1]', expected: 'string' })
 * ```
 */
export function readStringArray(value: unknown, path: string): Result<readonly string[], FieldProblem> {
  return readArray(value, path, (element, elementPath) =>
    typeof element === 'string' ? ok(element) : err({ path: elementPath, expected: 'string' }),
  );
}

/**
 * Reads an optional own field holding an array of strings (absent or `undefined` gives `undefined`).
 *
 * @param value - The object.
 * @param parent - The object's path.
 * @param key - The field.
 * @returns A fresh array or `undefined`, or `err`.
 * @internal
 * @example
 * ```ts
 * readOptionalStringArray({ allowGroups: ['a/b'] }, '', 'allowGroups'); // ok(['a/b'])
 * ```
 */
export function readOptionalStringArray(
  value: object,
  parent: string,
  key: string,
): Result<readonly string[] | undefined, FieldProblem> {
  const field = ownField(value, key);
  return field === undefined ? ok(undefined) : readStringArray(field, fieldPath(parent, key));
}

/**
 * Whether `value` is an array of strings.
 *
 * @param value - Anything.
 * @returns `true` for an array whose elements are all strings.
 * @example
 * ```ts
 * isStringArray(['a']); // true
 * ```
 * @internal
 */
export function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v: unknown) => typeof v === 'string');
}

/**
 * What a core parser produced a value as. A value is recognised only as the kind its parser marked it with, so a
 * parsed provider entry is never taken for a parsed identity.
 *
 * @internal
 */
export type ParsedKind = 'provider' | 'identity' | 'provider_facts';

/** The values the core's own parsers produced, by kind; module-private, so no foreign value can be in it. */
const PARSED = new WeakMap<object, ParsedKind>();

function freezeDeep(value: unknown): void {
  if (!isObject(value) || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeDeep(ownField(value, key));
}

/**
 * Marks a value a core parser has just built (fresh plain data: objects, arrays, strings, numbers, booleans) as
 * parsed: it is frozen, deeply, so that what was checked once stays true, and decision functions may then take it
 * as it is instead of reading it again field by field ("parse once at the boundary").
 *
 * @param kind - What the value was parsed as.
 * @param value - A value the parser built itself (never a value it was given).
 * @returns `value`, frozen and marked.
 * @example
 * ```ts
 * const identity = markParsed('identity', { accountId: '1', username: null, emails: [] });
 * isParsed(identity, 'identity'); // true
 * ```
 * @internal
 */
export function markParsed<T extends object>(kind: ParsedKind, value: T): T {
  freezeDeep(value);
  PARSED.set(value, kind);
  return value;
}

/**
 * Whether `value` is a value a core parser produced as `kind` (see {@link markParsed}). Anything else, a look-alike
 * object or a proxy included, is foreign and must be read defensively.
 *
 * @param value - Anything.
 * @param kind - The kind to recognise.
 * @returns `true` only for values marked as `kind`.
 * @example
 * ```ts
 * isParsed({ accountId: '1', username: null, emails: [] }, 'identity'); // false (not produced by the parser)
 * ```
 * @internal
 */
export function isParsed(value: unknown, kind: ParsedKind): boolean {
  return isObject(value) && PARSED.get(value) === kind;
}

/**
 * The core's one bad-input error shape for untyped input: which field (`path`, `''` for the value itself) and what
 * it should have been.
 *
 * @internal
 */
export interface InvalidInputError {
  /** Always `invalid_input`. */
  readonly code: 'invalid_input';
  /** Path of the field, for example `emails[0].verified`. */
  readonly path: string;
  /** What the field should have been, for example `boolean`. */
  readonly expected: string;
}

/**
 * Turns a field problem of a reader into the core's bad-input error.
 *
 * @param problem - What a reader found wrong.
 * @returns `{ code: 'invalid_input', path, expected }`.
 * @example
 * ```ts
 * invalidInput({ path: 'emails[0].verified', expected: 'boolean' });
 * // { code: 'invalid_input', path: 'emails[0].verified', expected: 'boolean' }
 * ```
 * @internal
 */
export function invalidInput(problem: FieldProblem): InvalidInputError {
  return { code: 'invalid_input', path: problem.path, expected: problem.expected };
}
