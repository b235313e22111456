/**
 * Appending to a full audit log: the memory store's log (append O(1), expiry from the front with a moving head)
 * against an array capped by `splice` (the former store, O(n) per append at the cap), both held at a steady size
 * of 1,000 and 100,000 entries: each operation appends one entry and expires the oldest.
 */
import { createMemoryAuditLog } from '../packages/server/src/store/memory/audit.js';
import { Journal } from '../packages/server/src/store/memory/journal.js';
import type { AuditEntry, NewAuditEntry } from '../packages/server/src/store/types.js';
import { measure, printTable } from './harness.js';

const entry = (timestamp: number): NewAuditEntry => ({
  timestamp,
  entity: 'auth.accessToken',
  action: 'failed',
  reason: 'invalid Authorization header',
  actorUserId: null,
  subjectUserId: null,
  details: { scheme: 'basic' },
});

function spliceCapped(size: number): () => void {
  const audit: AuditEntry[] = [];
  let t = 0;
  const append = (): void => {
    const e = entry(t++);
    audit.push({ ...e, details: { ...e.details }, id: String(t), count: 1, firstAt: e.timestamp, lastAt: e.timestamp });
    if (audit.length > size) audit.splice(0, audit.length - size);
  };
  for (let i = 0; i < size; i++) append();
  return append;
}

function movingHead(size: number): () => void {
  const log = createMemoryAuditLog(new Journal());
  let t = 0;
  for (; t < size; t++) log.append(entry(t));
  return () => {
    log.append(entry(t++));
    log.purge(t - size, 1);
  };
}

/** Prints one table per steady size. */
export function run(): void {
  for (const size of [1_000, 100_000]) {
    printTable(`audit log append at a steady ${size.toLocaleString('en')} entries`, 'splice-capped array (before)', [
      { name: 'splice-capped array (before)', nsPerOp: measure(spliceCapped(size)) },
      { name: 'gatehouse memory audit log', nsPerOp: measure(movingHead(size)) },
    ]);
  }
}
