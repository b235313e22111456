/**
 * Where `gatehouse api` sends requests, with which token, extra headers and proxy: flags over the environment
 * (`SRC_ENDPOINT`, `SRC_ACCESS_TOKEN`, `SRC_HEADER_*`, `SRC_HEADERS`, `SRC_PROXY`) over the JSON config file, as
 * src-cli reads them; all pure functions.
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
  /** Headers sent with every request (names are case-insensitive; the environment's win). */
  readonly additionalHeaders?: Readonly<Record<string, string>>;
  /** The proxy to send requests through (`SRC_PROXY` wins), as {@link resolveProxy} reads it. */
  readonly proxy?: string;
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
  | { readonly code: 'invalid_config_field'; readonly field: 'file' | 'endpoint' | 'accessToken' | 'additionalHeaders' | 'proxy' }
  /** Neither `SRC_ENDPOINT` nor the config file names an endpoint. */
  | { readonly code: 'missing_endpoint' }
  /** The endpoint is not an `http:` or `https:` URL without credentials, query or fragment. */
  | { readonly code: 'invalid_endpoint'; readonly endpoint: string }
  /** A header name that is not an RFC 9110 token, or a value with a control character. */
  | { readonly code: 'invalid_header'; readonly name: string }
  /** An `Authorization` header in `additionalHeaders`/`SRC_HEADER*` while an access token is also set (src-cli refuses this too). */
  | { readonly code: 'authorization_conflict' }
  /** A proxy that is neither an `http(s)://` URL nor a Unix socket path (SOCKS included: not supported). */
  | { readonly code: 'invalid_proxy'; readonly proxy: string };

const parseJson = Result.fromThrowable(
  (text: string): unknown => JSON.parse(text),
  (): ConfigError => ({ code: 'invalid_config_json' }),
);

/**
 * Reads a config file's text: `endpoint`, `accessToken`, `additionalHeaders` (an object of strings) and `proxy`.
 * Other keys are ignored (the file may be shared with other tools).
 *
 * @param text - The file's content.
 * @returns The settings, or why the file is unusable.
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
    const own = (key: string): unknown => (Object.hasOwn(value, key) ? Reflect.get(value, key) : undefined);
    const endpoint = own('endpoint');
    const accessToken = own('accessToken');
    const headers = own('additionalHeaders');
    const proxy = own('proxy');
    if (endpoint !== undefined && typeof endpoint !== 'string') return err({ code: 'invalid_config_field', field: 'endpoint' });
    if (accessToken !== undefined && typeof accessToken !== 'string') {
      return err({ code: 'invalid_config_field', field: 'accessToken' });
    }
    if (proxy !== undefined && typeof proxy !== 'string') return err({ code: 'invalid_config_field', field: 'proxy' });
    let additionalHeaders: Record<string, string> | undefined;
    if (headers !== undefined && headers !== null) {
      if (typeof headers !== 'object' || Array.isArray(headers)) return err({ code: 'invalid_config_field', field: 'additionalHeaders' });
      additionalHeaders = {};
      for (const [name, headerValue] of Object.entries(headers)) {
        if (typeof headerValue !== 'string') return err({ code: 'invalid_config_field', field: 'additionalHeaders' });
        Object.defineProperty(additionalHeaders, name, { value: headerValue, enumerable: true, writable: true, configurable: true });
      }
    }
    return ok({
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(accessToken === undefined ? {} : { accessToken }),
      ...(additionalHeaders === undefined ? {} : { additionalHeaders }),
      ...(proxy === undefined ? {} : { proxy }),
    });
  });
}

/**
 * Expands a config file path as src-cli does: a leading `~/` is the home directory, then `$NAME` and `${NAME}`
 * are replaced by the environment's values (an unset variable by nothing).
 *
 * @param path - The path as given (`-config` or the default `~/src-config.json`).
 * @param env - The environment.
 * @param home - The home directory.
 * @returns The path to read.
 * @example
 * ```ts
 * expandConfigPath('~/src-config.json', {}, '/home/a');           // '/home/a/src-config.json'
 * expandConfigPath('$HOME/x/${NAME}.json', { HOME: '/h', NAME: 'c' }, '/home/a'); // '/h/x/c.json'
 * ```
 */
export function expandConfigPath(path: string, env: Readonly<Record<string, string | undefined>>, home: string): string {
  const tilde = path === '~' ? home : path.startsWith('~/') ? `${home.replace(/\/+$/, '')}/${path.slice(2)}` : path;
  return tilde.replace(/\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ''] ?? '');
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
 * Combines the `-endpoint` flag, the environment and the config file, setting by setting: `-endpoint` wins over
 * a non-empty `SRC_ENDPOINT`, which wins over the file; a non-empty `SRC_ACCESS_TOKEN` wins over the file (spec
 * §1). An empty value counts as unset.
 *
 * @param env - The environment.
 * @param file - The config file's settings (`{}` when there is no file).
 * @param endpointFlag - The `-endpoint` flag, or `null`.
 * @returns The connection, or why there is none.
 * @example
 * ```ts
 * resolveConnection({ SRC_ENDPOINT: 'http://a/' }, { endpoint: 'http://b', accessToken: 't' });
 * // ok({ endpoint: 'http://a', graphqlUrl: 'http://a/.api/graphql', accessToken: 't' })
 * ```
 */
export function resolveConnection(
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigFile,
  endpointFlag: string | null = null,
): Result<Connection, ConfigError> {
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const rawEndpoint = (endpointFlag === '' ? null : endpointFlag) ?? fromEnv('SRC_ENDPOINT') ?? (file.endpoint === '' ? undefined : file.endpoint);
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

/** An RFC 9110 §5.6.2 token: what a header name may be. */
function isToken(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

/** An RFC 9110 §5.5 field value on one line: no control character but horizontal tab. */
function isFieldValue(value: string): boolean {
  return !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value);
}

/**
 * The extra headers of every request, as src-cli builds them: each `SRC_HEADER_<NAME>=value` (a non-empty name
 * and value) sends `<name>: value`; `SRC_HEADERS` holds `Name:value` lines (one pair a line, a literal `\n` also
 * separating them, one pair of surrounding `"` dropped; a line without `:` or with an empty value is skipped;
 * name and value are trimmed of spaces); both win over the config file's `additionalHeaders`. Names are
 * lowercased, so each header is sent once. Header names and values are checked here rather than refused later by
 * the HTTP stack.
 *
 * @param env - The environment, in its order (for two variables naming one header, the later wins).
 * @param file - The config file's settings.
 * @returns The headers by lowercase name, or the first unusable one.
 * @example
 * ```ts
 * resolveHeaders({ SRC_HEADER_X_Team: 'a', SRC_HEADERS: 'Client-ID: one\\nextra:metadata' }, { additionalHeaders: { 'X-Team': 'b' } });
 * // ok({ x_team: 'a', 'client-id': 'one', extra: 'metadata', 'x-team': 'b' })
 * ```
 */
export function resolveHeaders(
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigFile,
): Result<Readonly<Record<string, string>>, ConfigError> {
  const headers = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (key === 'SRC_HEADERS') {
      const lines = value.replace(/^"|"$/g, '').replaceAll('\\n', '\n').split('\n');
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon < 0 || colon === line.length - 1) continue;
        headers.set(line.slice(0, colon).toLowerCase().replace(/^ +| +$/g, ''), line.slice(colon + 1).replace(/^ +| +$/g, ''));
      }
      continue;
    }
    if (key.startsWith('SRC_HEADER_') && key.length > 'SRC_HEADER_'.length) headers.set(key.slice('SRC_HEADER_'.length).toLowerCase(), value);
  }
  for (const [name, value] of Object.entries(file.additionalHeaders ?? {})) {
    if (!headers.has(name.toLowerCase())) headers.set(name.toLowerCase(), value);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!isToken(name) || !isFieldValue(value)) return err({ code: 'invalid_header', name });
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return ok(out);
}

/**
 * How a request reaches the server.
 *
 * @example
 * ```ts
 * const route: ProxyRoute = { kind: 'http_proxy', proxy: 'http://127.0.0.1:8080', source: 'SRC_PROXY' };
 * ```
 */
export type ProxyRoute =
  /** Straight to the server. */
  | { readonly kind: 'direct' }
  /** Through an HTTP proxy (`http:` or `https:` URL): absolute-URI requests for `http:` targets, `CONNECT` for `https:`. */
  | { readonly kind: 'http_proxy'; readonly proxy: string; readonly source: string }
  /** Through a Unix socket that speaks HTTP to the server (src-cli's socket proxy). */
  | { readonly kind: 'unix_socket'; readonly path: string; readonly source: string };

/** Whether `NO_PROXY` (Go's reading) exempts `url`: `*`, a host or domain (and its subdomains; a leading `.` only them), an IP or IPv4 CIDR, each with an optional port. */
function exempt(url: URL, noProxy: string): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const withPort = /^(.*):(\d+)$/.exec(entry);
    if (withPort?.[1] !== undefined && !withPort[1].includes(':')) {
      if (withPort[2] !== port) continue;
      entry = withPort[1];
    }
    entry = entry.replace(/^\[|\]$/g, '');
    const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(entry);
    if (cidr?.[1] !== undefined && /^\d+\.\d+\.\d+\.\d+$/.test(host)) {
      const scale = 2 ** (32 - Math.min(Number(cidr[2]), 32));
      const toInt = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
      if (Math.floor(toInt(host) / scale) === Math.floor(toInt(cidr[1]) / scale)) return true;
      continue;
    }
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return true;
      continue;
    }
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/** Whether the host is loopback: Go's proxy variables never apply to it. */
function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Chooses the proxy for a request to `target`, as src-cli does: `SRC_PROXY`, else the config file's `proxy`, for
 * every request (`http://` or `https://` with optional `user:password@`; `unix://PATH`, a path, or `~/PATH` for a
 * Unix socket); else Go's standard variables: `HTTPS_PROXY`/`https_proxy` for `https:` targets,
 * `HTTP_PROXY`/`http_proxy` for `http:` ones (a value without a scheme is `http://`), unless `NO_PROXY`/`no_proxy`
 * exempts the host or the host is loopback. SOCKS proxies are not supported.
 *
 * @param env - The environment.
 * @param file - The config file's settings.
 * @param target - The URL the request goes to.
 * @param home - The home directory (for `~/` socket paths).
 * @returns The route, or why the proxy setting is unusable.
 * @example
 * ```ts
 * resolveProxy({ HTTPS_PROXY: 'proxy:3128' }, {}, new URL('https://sg.example/.api/graphql'), '/home/a');
 * // ok({ kind: 'http_proxy', proxy: 'http://proxy:3128', source: 'HTTPS_PROXY' })
 * ```
 */
export function resolveProxy(
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigFile,
  target: URL,
  home: string,
): Result<ProxyRoute, ConfigError> {
  const set = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const explicit = set('SRC_PROXY') !== undefined ? { value: set('SRC_PROXY') ?? '', source: 'SRC_PROXY' } : file.proxy ? { value: file.proxy, source: 'config file "proxy"' } : null;
  if (explicit !== null) {
    const { value, source } = explicit;
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase();
    if (scheme === 'http' || scheme === 'https') {
      return URL.canParse(value) && new URL(value).hostname !== '' ? ok({ kind: 'http_proxy', proxy: value, source }) : err({ code: 'invalid_proxy', proxy: value });
    }
    if (scheme === undefined || scheme === 'unix') {
      const raw = scheme === 'unix' ? value.slice('unix://'.length) : value;
      const path = raw.startsWith('~/') ? `${home.replace(/\/+$/, '')}/${raw.slice(2)}` : raw;
      return path.startsWith('/') ? ok({ kind: 'unix_socket', path, source }) : err({ code: 'invalid_proxy', proxy: value });
    }
    return err({ code: 'invalid_proxy', proxy: value });
  }
  const pick = (...names: string[]): { value: string; source: string } | null => {
    for (const name of names) {
      const value = set(name);
      if (value !== undefined) return { value, source: name };
    }
    return null;
  };
  const standard = target.protocol === 'https:' ? pick('HTTPS_PROXY', 'https_proxy') : pick('HTTP_PROXY', 'http_proxy');
  if (standard === null || isLoopback(target)) return ok({ kind: 'direct' });
  const noProxy = pick('NO_PROXY', 'no_proxy');
  if (noProxy !== null && exempt(target, noProxy.value)) return ok({ kind: 'direct' });
  const value = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(standard.value) ? standard.value : `http://${standard.value}`;
  const scheme = value.slice(0, value.indexOf(':')).toLowerCase();
  if ((scheme !== 'http' && scheme !== 'https') || !URL.canParse(value) || new URL(value).hostname === '') {
    return err({ code: 'invalid_proxy', proxy: standard.value });
  }
  return ok({ kind: 'http_proxy', proxy: value, source: standard.source });
}
