/**
 * Where `gatehouse api` sends requests and with which token: the environment (`SRC_ENDPOINT`, `SRC_ACCESS_TOKEN`) over the JSON config file, as pure functions.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';

/**
 * The settings a config file may hold (`~/src-config.json`).
 *
 * @example
 * ```ts
 * const file: ConfigFile = { endpoint: 'http://localhost:3080', accessToken: 'gat_…' };
 * ```
 */
export interface ConfigFile {
  /** The server's base URL. */
  readonly endpoint?: string;
  /** A personal access token. */
  readonly accessToken?: string;
}

/**
 * Why the configuration is unusable.
 *
 * @example
 * ```ts
 * const e: ConfigError = { code: 'missing_endpoint' };
 * ```
 */
export type ConfigError =
  /** The config file is not JSON. */
  | { readonly code: 'invalid_config_json' }
  /** The config file is not an object, or `endpoint`/`accessToken` is not a string. */
  | { readonly code: 'invalid_config_field'; readonly field: 'file' | 'endpoint' | 'accessToken' }
  /** Neither `SRC_ENDPOINT` nor the config file names an endpoint. */
  | { readonly code: 'missing_endpoint' }
  /** The endpoint is not an `http:` or `https:` URL without credentials, query or fragment. */
  | { readonly code: 'invalid_endpoint'; readonly endpoint: string };

const parseJson = Result.fromThrowable(
  (text: string): unknown => JSON.parse(text),
  (): ConfigError => ({ code: 'invalid_config_json' }),
);

/**
 * Reads a config file's text. Other keys than `endpoint` and `accessToken` are ignored (the file
 * may be shared with other tools).
 *
 * @param text - The file's content.
 * @returns The two settings, or why the file is unusable.
 * @example
 * ```ts
 * parseConfigFile('{"endpoint": "http://localhost:3080"}'); // ok({ endpoint: 'http://localhost:3080' })
 * parseConfigFile('{"endpoint": 1}');                       // err({ code: 'invalid_config_field', field: 'endpoint' })
 * ```
 */
export function parseConfigFile(text: string): Result<ConfigFile, ConfigError> {
  return parseJson(text).andThen((value): Result<ConfigFile, ConfigError> => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return err({ code: 'invalid_config_field', field: 'file' });
    }
    const endpoint: unknown = Object.hasOwn(value, 'endpoint') ? Reflect.get(value, 'endpoint') : undefined;
    const accessToken: unknown = Object.hasOwn(value, 'accessToken') ? Reflect.get(value, 'accessToken') : undefined;
    if (endpoint !== undefined && typeof endpoint !== 'string') return err({ code: 'invalid_config_field', field: 'endpoint' });
    if (accessToken !== undefined && typeof accessToken !== 'string') {
      return err({ code: 'invalid_config_field', field: 'accessToken' });
    }
    return ok({ ...(endpoint === undefined ? {} : { endpoint }), ...(accessToken === undefined ? {} : { accessToken }) });
  });
}

/**
 * Where and how to connect.
 *
 * @example
 * ```ts
 * const c: Connection = { endpoint: 'http://localhost:3080', graphqlUrl: 'http://localhost:3080/.api/graphql', accessToken: null };
 * ```
 */
export interface Connection {
  /** The base URL, without trailing slashes. */
  readonly endpoint: string;
  /** `{endpoint}/.api/graphql` (spec §4, §9 rule 2). */
  readonly graphqlUrl: string;
  /** The access token, or `null` for an anonymous request. */
  readonly accessToken: string | null;
}

/**
 * Combines the environment and the config file, setting by setting: a non-empty `SRC_ENDPOINT` or
 * `SRC_ACCESS_TOKEN` wins over the file (spec §1, issue 5). An empty value counts as unset.
 *
 * @param env - The environment.
 * @param file - The config file's settings (`{}` when there is no file).
 * @returns The connection, or why there is none.
 * @example
 * ```ts
 * resolveConnection({ SRC_ENDPOINT: 'http://a/' }, { endpoint: 'http://b', accessToken: 't' });
 * // ok({ endpoint: 'http://a', graphqlUrl: 'http://a/.api/graphql', accessToken: 't' })
 * ```
 */
export function resolveConnection(env: Readonly<Record<string, string | undefined>>, file: ConfigFile): Result<Connection, ConfigError> {
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const rawEndpoint = fromEnv('SRC_ENDPOINT') ?? (file.endpoint === '' ? undefined : file.endpoint);
  const token = fromEnv('SRC_ACCESS_TOKEN') ?? (file.accessToken === '' ? undefined : file.accessToken);
  if (rawEndpoint === undefined) return err({ code: 'missing_endpoint' });
  const endpoint = rawEndpoint.trim().replace(/\/+$/, '');
  if (!URL.canParse(endpoint)) return err({ code: 'invalid_endpoint', endpoint: rawEndpoint });
  const url = new URL(endpoint);
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    endpoint.includes('?') ||
    endpoint.includes('#')
  ) {
    return err({ code: 'invalid_endpoint', endpoint: rawEndpoint });
  }
  return ok({ endpoint, graphqlUrl: `${endpoint}/.api/graphql`, accessToken: token ?? null });
}
