/**
 * The store contract for ephemeral entries: time to live judged by the caller's `now`, single-use `take`, order
 * by last `put`, per-group counts and eviction, and the bounded purge.
 */
import { describe, expect, it } from 'vitest';
import { ephemeralEntry, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';

/** Registers the ephemeral cases. */
export function describeEphemeral(open: OpenStore): void {
  describe('ephemeral: put, get, take, delete and the time to live', () => {
    it('should return a stored entry until its expiry, and never at or after it', async () => {
      await withStore(open, async (store) => {
        const entry = ephemeralEntry('k1', { expiresAt: 1_000 });
        await store.ephemeral.put(entry);
        expect(await store.ephemeral.get('flow_state', 'k1', 0)).toStrictEqual(entry);
        expect(await store.ephemeral.get('flow_state', 'k1', 999)).toStrictEqual(entry);
        expect(await store.ephemeral.get('flow_state', 'k1', 1_000)).toBeNull();
        expect(await store.ephemeral.get('flow_state', 'k1', 5_000)).toBeNull();
        expect(await store.ephemeral.take('flow_state', 'k1', 1_000)).toBeNull();
        expect(await store.ephemeral.delete('flow_state', 'k1', 1_000)).toBe(false);
        expect(await store.ephemeral.count('flow_state', 1_000)).toBe(0);
        expect(await store.ephemeral.get('flow_state', 'missing', 0)).toBeNull();
      });
    });

    it('should leave an expired entry a take found nothing in for the purge, and remove one a delete names', async () => {
      await withStore(open, async (store) => {
        await store.ephemeral.put(ephemeralEntry('k1', { expiresAt: 1 }));
        await store.ephemeral.put(ephemeralEntry('k2', { expiresAt: 1 }));
        expect(await store.ephemeral.take('flow_state', 'k1', 1)).toBeNull();
        expect(await store.ephemeral.delete('flow_state', 'k2', 1)).toBe(false);
        expect(await store.ephemeral.purgeExpired(1, 10)).toBe(1);
        expect(await store.ephemeral.purgeExpired(1, 10)).toBe(0);
      });
    });

    it('should take an entry once: the second take, get and delete find nothing', async () => {
      await withStore(open, async (store) => {
        await store.ephemeral.put(ephemeralEntry('k1'));
        expect(await store.ephemeral.take('flow_state', 'k1', 10)).toStrictEqual(ephemeralEntry('k1'));
        expect(await store.ephemeral.take('flow_state', 'k1', 10)).toBeNull();
        expect(await store.ephemeral.get('flow_state', 'k1', 10)).toBeNull();
        expect(await store.ephemeral.delete('flow_state', 'k1', 10)).toBe(false);
      });
    });

    it('should replace an entry with the same kind and key, and keep kinds apart', async () => {
      await withStore(open, async (store) => {
        await store.ephemeral.put(ephemeralEntry('k1', { value: 'one' }));
        await store.ephemeral.put(ephemeralEntry('k1', { value: 'two', group: 'g2', expiresAt: 2_000 }));
        await store.ephemeral.put(ephemeralEntry('k1', { kind: 'saml_request', value: 'saml' }));
        expect(await store.ephemeral.get('flow_state', 'k1', 1_500)).toStrictEqual(ephemeralEntry('k1', { value: 'two', group: 'g2', expiresAt: 2_000 }));
        expect(await store.ephemeral.count('flow_state', 0)).toBe(1);
        expect(await store.ephemeral.count('flow_state', 0, 'g1')).toBe(0);
        expect((await store.ephemeral.get('saml_request', 'k1', 0))?.value).toBe('saml');
        expect(await store.ephemeral.delete('saml_request', 'k1', 0)).toBe(true);
        expect(await store.ephemeral.get('flow_state', 'k1', 0)).not.toBeNull();
        expect(await store.ephemeral.get('throttle', 'k1', 0)).toBeNull();
      });
    });

    it('should copy entries in and out', async () => {
      await withStore(open, async (store) => {
        const entry = { ...ephemeralEntry('k1') };
        await store.ephemeral.put(entry);
        (entry as { value: string }).value = 'changed';
        const read = await store.ephemeral.get('flow_state', 'k1', 0);
        if (read !== null) (read as { value: string }).value = 'changed too';
        expect((await store.ephemeral.get('flow_state', 'k1', 0))?.value).toBe(ephemeralEntry('k1').value);
      });
    });
  });

  describe('ephemeral: counts, the heaviest group and eviction', () => {
    it('should count live entries per kind and group, and name the group holding the most', async () => {
      await withStore(open, async (store) => {
        expect(await store.ephemeral.heaviestGroup('flow_state', 0)).toBeNull();
        await store.ephemeral.put(ephemeralEntry('a', { group: 'g1' }));
        await store.ephemeral.put(ephemeralEntry('b', { group: 'g2' }));
        await store.ephemeral.put(ephemeralEntry('c', { group: 'g2' }));
        await store.ephemeral.put(ephemeralEntry('d', { group: 'g3', expiresAt: 50 }));
        await store.ephemeral.put(ephemeralEntry('e', { group: 'g3', expiresAt: 50 }));
        await store.ephemeral.put(ephemeralEntry('f', { group: 'g3', expiresAt: 50 }));
        await store.ephemeral.put(ephemeralEntry('t', { kind: 'throttle', group: 'free' }));
        expect(await store.ephemeral.count('flow_state', 0)).toBe(6);
        expect(await store.ephemeral.count('flow_state', 60)).toBe(3);
        expect(await store.ephemeral.count('flow_state', 60, 'g2')).toBe(2);
        expect(await store.ephemeral.count('throttle', 0, 'free')).toBe(1);
        expect(await store.ephemeral.heaviestGroup('flow_state', 0)).toStrictEqual({ group: 'g3', count: 3 });
        expect(await store.ephemeral.heaviestGroup('flow_state', 60)).toStrictEqual({ group: 'g2', count: 2 });
        expect(await store.ephemeral.heaviestGroup('flow_state', 1_000)).toBeNull();
        expect(await store.ephemeral.heaviestGroup('saml_request', 0)).toBeNull();
      });
    });

    it('should evict the oldest live entry of a group by last put, skipping expired ones and other groups', async () => {
      await withStore(open, async (store) => {
        await store.ephemeral.put(ephemeralEntry('expired', { expiresAt: 5 }));
        await store.ephemeral.put(ephemeralEntry('a'));
        await store.ephemeral.put(ephemeralEntry('other', { group: 'g2' }));
        await store.ephemeral.put(ephemeralEntry('b'));
        await store.ephemeral.put(ephemeralEntry('c'));
        // put again: now the newest
        await store.ephemeral.put(ephemeralEntry('a'));
        const evicted: (string | undefined)[] = [];
        for (let i = 0; i < 4; i++) evicted.push((await store.ephemeral.deleteOldest('flow_state', 'g1', 10))?.key);
        expect(evicted).toStrictEqual(['b', 'c', 'a', undefined]);
        expect(await store.ephemeral.get('flow_state', 'other', 10)).not.toBeNull();
        expect(await store.ephemeral.deleteOldest('flow_state', 'g9', 10)).toBeNull();
      });
    });
  });

  describe('ephemeral.purgeExpired', () => {
    it('should delete expired entries of every kind, at most limit per call, returning fewer only when none remain', async () => {
      await withStore(open, async (store) => {
        for (let n = 0; n < 5; n++) await store.ephemeral.put(ephemeralEntry(`f${n}`, { expiresAt: 100 + n }));
        for (let n = 0; n < 3; n++) await store.ephemeral.put(ephemeralEntry(`s${n}`, { kind: 'saml_request', expiresAt: 100 }));
        await store.ephemeral.put(ephemeralEntry('live', { expiresAt: 10_000 }));
        await store.ephemeral.put(ephemeralEntry('t-live', { kind: 'throttle', expiresAt: 10_000 }));
        const purged: number[] = [];
        for (let i = 0; i < 5; i++) purged.push(await store.ephemeral.purgeExpired(200, 3));
        expect(purged).toStrictEqual([3, 3, 2, 0, 0]);
        expect(await store.ephemeral.purgeExpired(20_000, 0)).toBe(0);
        expect(await store.ephemeral.count('flow_state', 0)).toBe(1);
        expect(await store.ephemeral.count('saml_request', 0)).toBe(0);
        expect(await store.ephemeral.get('throttle', 't-live', 0)).not.toBeNull();
        // an entry expired at exactly `now` is purged; one that expires later is not
        await store.ephemeral.put(ephemeralEntry('edge', { expiresAt: 300 }));
        expect(await store.ephemeral.purgeExpired(299, 10)).toBe(0);
        expect(await store.ephemeral.purgeExpired(300, 10)).toBe(1);
      });
    });
  });
}
