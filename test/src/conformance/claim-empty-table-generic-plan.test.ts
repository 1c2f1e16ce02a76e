// A connection keeps a prepared statement's generic plan, made with the statistics of the moment
// it was made. Made while the jobs table was empty (a new database, or one that retention had
// emptied), the claim's UPDATE of the kept ids was a sequential scan, kept as the table grew: every
// claim read every row, finished ones included, until autovacuum's next ANALYZE replanned it. With
// the claim pool's settings (PG_BY_INDEX_OPTIONS beside the planner options), the generic plan
// made on an empty table reads the jobs table only through indexes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PG_BY_INDEX_OPTIONS, PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainPgClaim,
  openStore,
  planNodes,
  type TestDatabase,
} from '../helpers/index.js';

describe('a PostgreSQL claim planned generically on an empty jobs table', () => {
  let db: TestDatabase;
  let store: Store;

  before(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  for (const limited of [false, true]) {
    it(`reads nudge_jobs by index only, with the claim pool's settings${limited ? ' (a queue limited)' : ''}`, async () => {
      if (limited) await store.setQueueLimits('elsewhere', { concurrency: 10 });
      const plan = await explainPgClaim(
        db.url,
        [
          { kinds: ['a'], limit: 100 },
          { kinds: ['b'], limit: 2 },
        ],
        {
          options: `${PG_PLANNER_OPTIONS} ${PG_BY_INDEX_OPTIONS}`,
          planCacheMode: 'force_generic_plan',
          name: `empty-table-claim-${limited}`,
        },
      );
      const scans = planNodes(plan)
        .filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'nudge_jobs')
        .map((node) => node['Node Type']);
      assert.deepEqual(scans, [], 'sequential scans of nudge_jobs in the claim');
    });
  }
});
