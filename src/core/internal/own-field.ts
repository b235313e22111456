/**
 * Reading fields of values whose shape is only known at run time, without ever throwing.
 *
 * @internal
 * @module
 */

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

