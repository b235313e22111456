/**
 * Username normalization on its own (spec §5.5): the entry `gatehouse-auth/username` for a tool that only
 * normalizes or validates names. It imports neither `graphql` nor anything native, so installing and bundling it
 * costs only `neverthrow`.
 *
 * @module gatehouse-auth/username
 */
export { INVALID_USERNAME_REASONS, normalizeUsername, SUFFIX_LENGTH, SUFFIX_RANDOM_BYTES, USERNAME_MAX_LENGTH, validateUsername, withRandomSuffix } from './core/username.js';
export type { InvalidUsernameReason, RuntimeType, UsernameError } from './core/username.js';
