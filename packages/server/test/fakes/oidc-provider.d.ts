// The `oidc-provider` package ships no type declarations; the tests use only this much of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcAccount {
    readonly accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface OidcGrant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    save(): Promise<string>;
  }

  export interface OidcContext {
    readonly oidc: {
      readonly client?: { readonly clientId: string };
      readonly session?: { readonly accountId?: string };
      readonly provider: { readonly Grant: new (init: { accountId: string; clientId: string }) => OidcGrant };
    };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
}
