/**
 * The shape of a route: a handler takes a plain request value and returns a response value; one writer turns
 * that value into bytes, headers and cookies (the shape of graphql-http's `handler.ts` and `use/http.ts`). A
 * handler never sees `IncomingMessage` or `ServerResponse`, so it is tested as a function, without a socket.
 *
 * @module
 */

/** The request a handler sees: parsed once at the boundary. */
export interface RouteRequest {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The request URL resolved against the site's external URL (path and query as sent). */
  readonly url: URL;
  /** Header values by lower-case name; a repeated header's values joined with `, ` (`set-cookie` never appears). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Every value of each header, by lower-case name, as sent: a repeated `Authorization` header is refused, not
   * read as one (§5.1), so the values are kept apart here.
   */
  readonly headersDistinct: Readonly<Record<string, readonly string[]>>;
  /** Cookies sent by the browser, by name (the first of repeated names). */
  readonly cookies: ReadonlyMap<string, string>;
  /** The client's address as the server trusts it (the socket's, or the trusted proxy's header). */
  readonly clientAddress: string;
  /** The request id the log and the `X-Request-Id` response header carry. */
  readonly requestId: string;
  /**
   * The body as UTF-8 text, read before the handler runs for routes that declare {@link Route.body}, within its
   * limit; `null` for routes that read none and for methods without a body (`GET`, `HEAD`).
   */
  readonly body: string | null;
}

/** A cookie the writer sets with `Set-Cookie`. */
export interface ResponseCookie {
  /** The cookie name. */
  readonly name: string;
  /** The value (`''` with `maxAgeSeconds: 0` clears it). */
  readonly value: string;
  /** `Path` attribute. */
  readonly path: string;
  /** `Max-Age` in seconds; absent for a session cookie. */
  readonly maxAgeSeconds?: number;
  /** `SameSite` attribute. */
  readonly sameSite: 'Strict' | 'Lax' | 'None';
  /** `Secure` attribute (always set on an `https:` site). */
  readonly secure: boolean;
  /** `HttpOnly` attribute. */
  readonly httpOnly: boolean;
}

/** The response a handler returns; the writer adds the base security headers and the request id. */
export interface RouteResponse {
  /** The status code. */
  readonly status: number;
  /** Headers by name (the writer adds `Content-Length`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body: text (UTF-8), bytes, or none. */
  readonly body: string | Uint8Array | null;
  /** Cookies to set or clear. */
  readonly cookies?: readonly ResponseCookie[];
}

/** Body limits a route declares; the router reads the body before the handler runs and answers 413/415 itself. */
export interface RouteBody {
  /** The largest body accepted, in bytes. */
  readonly limit: number;
  /**
   * The accepted media types (`application/json`, `application/x-www-form-urlencoded`, …), or `any` for a route
   * that reads every body alike (the GraphQL endpoint reads JSON whatever the declared type, §4).
   */
  readonly contentTypes: readonly string[] | 'any';
  /** Whether a `gzip` or `deflate` body is decompressed (the API's); forms and OAuth requests never are. */
  readonly decompress: boolean;
  /**
   * Whether the handler checks the text of its body for what the store cannot hold itself (the GraphQL endpoint,
   * which answers with GraphQL errors); otherwise the router checks a form or JSON body before the handler runs.
   */
  readonly checksOwnText?: boolean;
}

/** One entry of the route table. */
export interface Route {
  /** The methods it answers (`HEAD` is answered as `GET` without a body when `GET` is listed). */
  readonly methods: readonly string[];
  /** The path, exact, or a prefix ending in `/*`. */
  readonly path: string;
  /** Read the body first, within these limits. */
  readonly body?: RouteBody;
  /** The handler. */
  readonly handler: (request: RouteRequest) => Promise<RouteResponse>;
}
