// SQLite's group commit runs several requests' writes in one transaction, each in a
// savepoint: the audit entries of a write whose savepoint is rolled back go with it, the
// others are appended at the commit, chained.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { groupCommitted } from '../../src/db/group-commit.js';
import { audit, SYSTEM_ACTOR } from '../../src/audit/audit.js';
import { auditEntries } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('audit entries in a group commit', () => {
  it('are kept only for the savepoints kept', async () => {
    // PostgreSQL commits each write alone (no savepoints): nothing to show there.
    if (t.dialect === 'postgres') return;
    const write = groupCommitted(async (db, n: number) => {
      await audit(db, { action: 'guide.edited', actor: SYSTEM_ACTOR, time: t.clock.now(), resource_type: 'guide', resource_id: 9000 + n });
      if (n === 2) throw new Error('refused');
      return n;
    });
    const outcomes = await Promise.allSettled([write(t.db, 1), write(t.db, 2), write(t.db, 3)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const entries = (await auditEntries(t, { action: 'guide.edited' })).filter((e) => Number(e.resource_id) > 9000);
    expect(entries.map((e) => e.resource_id)).toEqual(['9001', '9003']);
    expect(entries[1].prev_hash).toBe(entries[0].hash);
  });
});
