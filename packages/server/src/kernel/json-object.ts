/**
 * Reading back what the adapter itself stored as JSON text (flow state, SAML requests, throttle records): the
 * stored text is parsed once and its fields read as `unknown`, so a damaged or foreign row is `null`, never a crash.
 *
 * @module
 */

/**
 * The object a JSON text holds, or `null` when the text is not JSON or not an object.
 *
 * @param text - The stored text.
 * @returns The object's own fields, or `null`.
 * @example
 * ```ts
 * jsonObject('{"count":2}'); // { count: 2 }
 * jsonObject('[1]'); // null
 * jsonObject('not json'); // null
 * ```
 */
export function jsonObject(text: string): Readonly<Record<string, unknown>> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  // defined as own data properties: a "__proto__" key stays a field and sets no prototype
  return Object.fromEntries(Object.entries(value));
}
