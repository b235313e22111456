/**
 * The lookup keys a store indexes accounts by. A store compares these strings and nothing else: the matching
 * rules (usernames equal ignoring ASCII case, §5.5; verified emails equal ignoring ASCII case, §5.4 rule 2;
 * a linked identity equal by provider type, provider and account id, §5.4 rule 4) live here, once.
 *
 * @module
 */
import { asciiLowercase, emailMatchKey as emailKey } from './internal/email-address.js';

/**
 * The key two usernames share when they name the same account: the name with ASCII `A`–`Z` lowercased.
 *
 * @param username - A username, as stored or as typed.
 * @returns The key a store's unique username index holds.
 * @example
 * ```ts
 * usernameKey('Alice'); // 'alice'
 * ```
 */
export function usernameKey(username: string): string {
  return asciiLowercase(username);
}

/**
 * The key two email addresses share when they match for linking (§5.4 rule 2): the whole address with ASCII
 * `A`–`Z` lowercased.
 *
 * @param address - An email address.
 * @returns The key a store's unique verified-email index holds.
 * @example
 * ```ts
 * emailMatchKey('Alice@Example.COM'); // 'alice@example.com'
 * ```
 */
export function emailMatchKey(address: string): string {
  return emailKey(address);
}

/**
 * The key of an identity at a provider (§5.4 rule 4): equal exactly when provider type, provider and account id
 * are equal.
 *
 * @param serviceType - The provider type, such as `hosta`.
 * @param serviceId - Which provider of that type.
 * @param accountId - The identity's id at the provider.
 * @returns The key a store's unique link index holds.
 * @example
 * ```ts
 * externalAccountKey('hostb', 'https://hostb.example.com', '42'); // '["hostb","https://hostb.example.com","42"]'
 * ```
 */
export function externalAccountKey(serviceType: string, serviceId: string, accountId: string): string {
  return JSON.stringify([serviceType, serviceId, accountId]);
}
