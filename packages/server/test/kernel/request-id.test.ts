/**
 * Request ids: UUID-shaped (the logs and `X-Request-Id` carry them), distinct within a generator and between
 * generators.
 */
import { describe, expect, it } from 'vitest';
import { createRequestIds } from '../../src/kernel/request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u;

describe('request ids', () => {
  it('should be UUID-shaped (version 4, RFC 4122 variant) and distinct within one generator', () => {
    const next = createRequestIds();
    const ids = Array.from({ length: 10_000 }, () => next());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('should differ between two generators (their random parts differ)', () => {
    const a = createRequestIds();
    const b = createRequestIds();
    const first = new Set(Array.from({ length: 1_000 }, () => a()));
    for (let i = 0; i < 1_000; i++) expect(first.has(b())).toBe(false);
    expect(a().slice(0, 24)).not.toBe(b().slice(0, 24));
  });
});
