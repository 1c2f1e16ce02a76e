// A claim's cost does not grow with the backlog: with 20,000 due jobs in one queue and fresh
// statistics, the PostgreSQL claim reads the claim index in order and stops at its limit, rather
// than sorting every due row. The statistics of a single-queue table once made the planner think
// the paused-and-limited-queue filter passes no row; both the custom and the generic plan (a
// prepared claim switches to it after five runs) are checked, with and without a paused queue.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainPgClaim,
  openStore,
  rawQuery,
  type TestDatabase,
  planNodes,
} from '../helpers/index.js';

const BACKLOG = 20_000;
const LIMIT = 5;

describe('a PostgreSQL claim of a long single-queue backlog', () => {
  let db: TestDatabase;
  let store: Store;

  before(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
    for (let start = 0; start < BACKLOG; start += 5000) {
      await store.enqueueMany(Array.from({ length: 5000 }, () => ({ kind: 'k' })));
    }
    await rawQuery(db, 'ANALYZE nudge_jobs');
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    for (const paused of [false, true]) {
      it(`reads ${LIMIT} index entries for a claim of ${LIMIT} (${mode}${paused ? ', another queue paused' : ''})`, async () => {
        if (paused) await store.setQueuePaused('elsewhere', true);
        const plan = await explainPgClaim(db.url, [{ kinds: ['k'], limit: LIMIT }], {
          planCacheMode: mode,
          name: `claim-plan-${mode}-${paused}`,
        });
        const all = planNodes(plan);
        const claimScan = all.find((n) => n['Index Name'] === 'nudge_jobs_claimable');
        assert.ok(claimScan, 'the claim reads through nudge_jobs_claimable');
        assert.equal(
          claimScan['Node Type'],
          'Index Scan',
          'an ordered index scan, not a bitmap scan to sort',
        );
        assert.equal(claimScan['Actual Rows'], LIMIT, 'index entries read = rows claimed');
        assert.ok(
          !all.some((n) => n['Node Type'] === 'Sort' && (n['Actual Rows'] ?? 0) > LIMIT),
          'no sort of the backlog',
        );
      });
    }
  }
});
