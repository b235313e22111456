/**
 * The preview of a candidate site configuration over every stored account: the candidate is read by the core's
 * parser (its problems with their paths), then the accounts are paged through by keyset (1,000 a page, oldest first),
 * each page read with its identities and their last sign-in facts in one read (`signInPage`, the next page read while
 * this one is decided), decided by the core (`previewSignInPage`) and folded into one tally (`tallyPreviewPage`),
 * whose lists keep the first 200 names.
 * Nothing is written.
 *
 * @module
 */
import {
  configurationChanges,
  emptyPreviewTally,
  locksOutSiteAdmins,
  parseSiteConfiguration,
  previewSignInPage,
  tallyPreviewPage,
  type ConfigurationChanges,
  type PreviewAccount,
  type PreviewTally,
  type SiteConfiguration,
} from 'gatehouse-auth';
import type { AccountSignInRecord, AccountStore } from '../store/types.js';

/** Accounts read per page. */
export const PREVIEW_PAGE_SIZE = 1000;

/** Names each list of the answer keeps (the counts are complete). */
export const PREVIEW_LIST_CAP = 200;

/**
 * What a preview found.
 *
 * @example
 * ```ts
 * const preview: ConfigurationPreview = { kind: 'invalid', problems: [{ path: 'auth.providers[0].type', message: '…' }] };
 * ```
 */
export type ConfigurationPreview =
  /** The candidate does not parse: every problem with its JSON path, as a reload would report them. */
  | { readonly kind: 'invalid'; readonly problems: readonly { readonly path: string; readonly message: string }[] }
  /** The candidate is valid: what it would change. */
  | {
      readonly kind: 'preview';
      /** Who would lose or gain sign-in, who is unknown, and the site administrators' counts. */
      readonly tally: PreviewTally;
      /** Providers added, removed, opening or closing sign-up, and the query cost limits that change. */
      readonly changes: ConfigurationChanges;
      /** Whether it would lock out every site administrator who can sign in now. */
      readonly locksOutSiteAdmins: boolean;
      /** The candidate's warnings. */
      readonly warnings: readonly string[];
    };

/** What the preview reads: the account pages and their identities. */
export type PreviewStore = { readonly accounts: Pick<AccountStore, 'signInPage'> };

/**
 * Decides the sign-in of every stored account under `current` and `candidate`, page by page.
 *
 * @param store - Where the accounts are.
 * @param current - The configuration that runs.
 * @param candidate - The parsed candidate.
 * @param pageSize - Accounts per page (default {@link PREVIEW_PAGE_SIZE}, at most 1,000).
 * @returns The tally over every page.
 * @example
 * ```ts
 * const tally = await tallyConfigurationPreview(store, site.configuration, candidate);
 * tally.losing.count;
 * ```
 */
export async function tallyConfigurationPreview(
  store: PreviewStore,
  current: SiteConfiguration,
  candidate: SiteConfiguration,
  pageSize: number = PREVIEW_PAGE_SIZE,
): Promise<PreviewTally> {
  const first = Math.max(1, Math.min(PREVIEW_PAGE_SIZE, Math.floor(pageSize)));
  let tally = emptyPreviewTally(PREVIEW_LIST_CAP);
  let next: Promise<readonly AccountSignInRecord[]> | null = store.accounts.signInPage(first);
  while (next !== null) {
    const records: readonly AccountSignInRecord[] = await next;
    const last = records.at(-1);
    if (last === undefined) break;
    // the next page is read while the core decides this one (a database server works meanwhile); at most two pages
    // are held at once
    next = records.length < first ? null : store.accounts.signInPage(first, last.id);
    const page: PreviewAccount[] = records.map((r) => ({
      id: r.id,
      username: r.username,
      origin: r.origin,
      siteAdmin: r.siteAdmin,
      serviceAccount: r.serviceAccount,
      // only whether there is one is read
      passwordHash: r.hasPassword ? 'set' : null,
      identities: r.identities,
    }));
    const previews = previewSignInPage(current, candidate, page);
    // the core refuses only a malformed page, which the store's records never are
    if (previews.isOk()) tally = tallyPreviewPage(tally, previews.value);
  }
  return tally;
}

/**
 * Previews a candidate configuration given as JSONC text: its problems, or what it would change.
 *
 * @param store - Where the accounts are.
 * @param current - The configuration that runs.
 * @param text - The candidate, as an administrator would write the file.
 * @param pageSize - Accounts per page.
 * @returns The problems, or the preview.
 * @example
 * ```ts
 * const preview = await previewConfiguration(store, gatehouse.configuration, await readFile('next.jsonc', 'utf8'));
 * if (preview.kind === 'preview') console.log(preview.tally.losing.count);
 * ```
 */
export async function previewConfiguration(
  store: PreviewStore,
  current: SiteConfiguration,
  text: string,
  pageSize: number = PREVIEW_PAGE_SIZE,
): Promise<ConfigurationPreview> {
  const parsed = parseSiteConfiguration(text);
  if (parsed.isErr()) return { kind: 'invalid', problems: parsed.error.problems.map((p) => ({ path: p.path, message: p.message })) };
  const candidate = parsed.value;
  const tally = await tallyConfigurationPreview(store, current, candidate, pageSize);
  return {
    kind: 'preview',
    tally,
    changes: configurationChanges(current, candidate),
    locksOutSiteAdmins: locksOutSiteAdmins(tally),
    warnings: candidate.warnings.map((w) => w.message),
  };
}

/**
 * The sentence a refused reload gives when the candidate would lock out every site administrator.
 *
 * @example
 * ```ts
 * LOCKOUT_PROBLEM.path; // 'auth.providers'
 * ```
 */
export const LOCKOUT_PROBLEM: { readonly path: string; readonly message: string } = {
  path: 'auth.providers',
  message:
    'This configuration would lock out every site administrator: none could sign in by any provider left (no builtin provider for a password, and no administrator identity still allowed). Keep a way in for at least one administrator.',
};
