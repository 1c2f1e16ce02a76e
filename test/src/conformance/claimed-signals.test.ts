// What a claim ships of a job's signals: the first of each name, read in one pass of the job's
// signals however many it has.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { ClaimedSteps } from '@nudge/store';
import { buildSqliteClaim } from '@nudge/store/statements';
import { createMigratedDatabase, type TestDatabase } from '../helpers/index.js';
import { describeStore } from './store-fixture.js';

const NAMES = 150;

describeStore('claimed signals', (t) => {
  it('a job with two signals of each of many names ships the first of each name', async () => {
    const { id } = await t.store.enqueue({ kind: 'k' });
    for (const round of [0, 1]) {
      await Promise.all(
        Array.from({ length: NAMES }, (_, i) =>
          t.store.sendSignal({ jobId: id, name: `n${i}`, payloadJson: JSON.stringify({ i, round }) }),
        ),
      );
    }
    const [job] = await t.claim(1);
    assert.equal(job?.id, id);
    const shipped = JSON.parse(job.stepsJson ?? '{}') as ClaimedSteps;
    assert.equal(shipped.signals.length, NAMES);
    const byName = new Map(shipped.signals.map(([name, payload]) => [name, payload]));
    for (let i = 0; i < NAMES; i += 1) assert.deepEqual(byName.get(`n${i}`), { i, round: 0 });
  });
});

describe('claimed signals: the SQLite claim', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createMigratedDatabase('sqlite');
  });
  after(() => db.drop());

  it('finds the first signal of each name without a subquery run per signal', () => {
    const conn = new Database(db.url.slice('sqlite:'.length), { readonly: true });
    try {
      const claim = buildSqliteClaim({ workerId: 'w', leaseMs: 60_000, groups: [] }, [
        { kinds: ['k'], limit: 1 },
      ]);
      const details = conn
        .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${claim.text}`)
        .all(claim.params)
        .map((row) => row.detail);
      // A correlated list subquery (`id IN (SELECT min(id) … GROUP BY name)`) runs once per row
      // it filters: its time grew with the square of a job's signals.
      assert.ok(
        details.every((d) => !d.includes('CORRELATED LIST SUBQUERY')),
        `no correlated list subquery: ${details.join(' | ')}`,
      );
      assert.ok(
        details.some((d) => d.includes('nudge_job_signals_by_name')),
        `the signals are read by job and name: ${details.join(' | ')}`,
      );
    } finally {
      conn.close();
    }
  });
});
