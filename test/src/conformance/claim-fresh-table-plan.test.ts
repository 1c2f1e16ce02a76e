// On a table never analyzed (a new database, or a burst of jobs before autovacuum's ANALYZE), no
// part of a PostgreSQL claim reads the backlog. The probe for limited queues with due jobs (the
// statement's `ready`) was an EXISTS, which the planner turned into a semi-join that grouped every
// due row of the claimed kinds by queue: 3 ms over 10,000 due jobs in each claim, with or without
// a limited queue. Both the custom and the generic plan are checked, with the store's planner
// settings (without them, as behind a transaction pooler, see claim-reads).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainPgClaim,
  openStore,
  planNodes,
  rowsRead,
  type TestDatabase,
} from '../helpers/index.js';

const BACKLOG = 20_000;
const LIMIT = 5;
/** More rows than any node of a claim of LIMIT needs, far fewer than the backlog. */
const MOST_ROWS = 1_000;

describe('a PostgreSQL claim on a table never analyzed', () => {
  let db: TestDatabase;
  let store: Store;

  before(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
    for (let start = 0; start < BACKLOG; start += 5000) {
      await store.enqueueMany(Array.from({ length: 5000 }, () => ({ kind: 'k' })));
    }
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    for (const limited of [false, true]) {
      it(`reads no node of more than ${MOST_ROWS} rows for a claim of ${LIMIT} (${mode}${limited ? ', another queue limited' : ''})`, async () => {
        if (limited) await store.setQueueLimits('elsewhere', { concurrency: 10 });
        const plan = await explainPgClaim(db.url, [{ kinds: ['k'], limit: LIMIT }], {
          options: PG_PLANNER_OPTIONS,
          planCacheMode: mode,
          name: `fresh-claim-plan-${mode}-${limited}`,
        });
        const heavy = planNodes(plan).filter((node) => rowsRead(node) > MOST_ROWS);
        assert.deepEqual(
          heavy.map(
            (node) =>
              `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}: ${rowsRead(node)}`,
          ),
          [],
          'nodes that read the backlog',
        );
      });
    }
  }
});
