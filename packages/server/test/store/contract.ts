/**
 * The store contract suite: every implementation of `Store` runs it (the memory store, and the PostgreSQL store on
 * PGlite and on a server). It registers vitest cases for every operation, every conflict, the atomicity of every
 * multi-step write, single use under concurrent callers, expiry by the caller's clock, bounded and complete
 * purges, audit paging, the cascade of an account's deletion, and model-based sequences. It reads and writes only
 * through the `Store` interface.
 *
 * @example
 * ```ts
 * describeStoreContract('memory', async () => ({ store: createMemoryStore(), close: async () => {} }));
 * ```
 */
import { describe } from 'vitest';
import { describeAccountControls } from './contract/account-controls.js';
import { describeAccounts } from './contract/accounts.js';
import { describeAudit } from './contract/audit.js';
import { describeEphemeralModel } from './contract/ephemeral-model.js';
import { describeEphemeral } from './contract/ephemeral.js';
import type { OpenStore } from './contract/fixtures.js';
import { describeLockouts } from './contract/lockouts.js';
import { describeAccountModel } from './contract/model.js';
import { describeOAuthModel } from './contract/oauth-model.js';
import { describeOAuth } from './contract/oauth.js';
import { describeRaces } from './contract/races.js';
import { describeTokens } from './contract/tokens.js';
import { describeTransactions } from './contract/transactions.js';

export type { OpenedStore, OpenStore } from './contract/fixtures.js';

/** How hard the suite works; the defaults keep a database run well under a minute. */
export interface StoreContractOptions {
  /** Runs of each model-based property (default 15). */
  readonly modelRuns?: number;
  /** Entries the "never evicted by count" audit case appends (default 1,500). */
  readonly auditFloodSize?: number;
}

/**
 * Registers the store contract cases for one implementation.
 *
 * @param name - The implementation's name, shown in the test titles.
 * @param open - Opens a fresh, empty store for one case (called once per case and per model run).
 * @param options - How many model runs and audit entries.
 */
export function describeStoreContract(name: string, open: OpenStore, options: StoreContractOptions = {}): void {
  const modelRuns = options.modelRuns ?? 15;
  describe(`Store contract: ${name}`, () => {
    describeAccounts(open);
    describeAccountControls(open);
    describeTokens(open);
    describeOAuth(open);
    describeAudit(open, { floodSize: options.auditFloodSize ?? 1_500, modelRuns });
    describeEphemeral(open);
    describeLockouts(open);
    describeTransactions(open);
    describeRaces(open);
    describeAccountModel(open, modelRuns);
    describeEphemeralModel(open, modelRuns);
    describeOAuthModel(open, modelRuns);
  });
}
