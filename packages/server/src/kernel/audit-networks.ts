/**
 * The bookkeeping behind the per-window bound on client networks with their own unsupported-scheme audit entry:
 * the networks that have one in the current window. The decision is the core's `auditCoalescingNetwork`; this
 * module only remembers, for one window at a time, which networks it let in (at most the bound, so the set is
 * bounded too).
 *
 * @module
 */
import { auditCoalescingNetwork, OTHER_NETWORKS_CLIENT } from 'gatehouse-auth';

/**
 * The tracker of {@link createAuditNetworkTracker}.
 *
 * @example
 * ```ts
 * const tracker = createAuditNetworkTracker(1_000);
 * tracker.clientFor('203.0.113.7', 28_333_333); // '203.0.113.7'
 * ```
 * @internal
 */
export interface AuditNetworkTracker {
  /**
   * The client under which a failure from `network` in `window` is coalesced: the network itself, or
   * `other-networks` once the window has its bound of networks. A window earlier than the newest one seen (the
   * clock stepped back) is no longer tracked: its failures go to its `other-networks` entry, so no window ever
   * gets more than the bound plus one entries.
   */
  clientFor(network: string, window: number): string;
  /** How many networks the current window holds (at most the bound): for tests. */
  readonly size: number;
}

/**
 * Creates a tracker for a bound of `maxNetworks` networks per window.
 *
 * @param maxNetworks - Networks with their own entry per window (a positive safe integer).
 * @returns The tracker.
 *
 * @example
 * ```ts
 * const tracker = createAuditNetworkTracker(1);
 * tracker.clientFor('203.0.113.7', 0); // '203.0.113.7'
 * tracker.clientFor('203.0.113.8', 0); // 'other-networks'
 * ```
 * @internal
 */
export function createAuditNetworkTracker(maxNetworks: number): AuditNetworkTracker {
  let current = Number.NEGATIVE_INFINITY;
  const networks = new Set<string>();
  return {
    clientFor(network, window) {
      if (window > current) {
        current = window;
        networks.clear();
      }
      const tracked = window === current;
      const decision = auditCoalescingNetwork({
        network,
        known: tracked && networks.has(network),
        networksInWindow: tracked ? networks.size : maxNetworks,
        maxNetworks,
      });
      if (decision.isErr()) return OTHER_NETWORKS_CLIENT;
      if (decision.value.kind === 'own_entry') networks.add(network);
      return decision.value.client;
    },
    get size() {
      return networks.size;
    },
  };
}
