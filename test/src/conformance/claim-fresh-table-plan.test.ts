// On a table never analyzed (a new database, or a burst of jobs before autovacuum's ANALYZE), no
// part of a PostgreSQL claim reads the backlog. The probe for limited queues with due jobs (the
// statement's `ready`) was an EXISTS, which the planner turned into a semi-join that grouped every
// due row of the claimed kinds by queue: 3 ms over 10,000 due jobs in each claim, with or without
// a limited queue. Both the custom and the generic plan are checked, with the store's planner
// settings (without them, as behind a transaction pooler, see claim-reads).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { buildPgClaim, PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { Store } from '@nudge/store';
import {
  createTestDatabase,
  openStore,
  type TestDatabase,
  planNodes,
  type PlanNode,
} from '../helpers/index.js';

const BACKLOG = 20_000;
const LIMIT = 5;
/** More rows than any node of a claim of LIMIT needs, far fewer than the backlog. */
const MOST_ROWS = 1_000;

describe('a PostgreSQL claim on a table never analyzed', () => {
  let db: TestDatabase;
  let store: Store;

  before(async () => {
    db = await createTestDatabase('postgres');
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
        const client = new pg.Client({ connectionString: db.url, options: PG_PLANNER_OPTIONS });
        await client.connect();
        try {
          await client.query('BEGIN');
          await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
          const claim = buildPgClaim({ workerId: 'w1', leaseMs: 60_000, groups: [] }, [
            { kinds: ['k'], limit: LIMIT },
          ]);
          const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
            name: `fresh-claim-plan-${mode}-${limited}`,
            text: `EXPLAIN (ANALYZE, FORMAT JSON) ${claim.text}`,
            values: claim.values,
          });
          await client.query('ROLLBACK');
          const plan = rows[0]?.['QUERY PLAN'][0].Plan;
          assert.ok(plan);
          const read = (node: PlanNode): number =>
            ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) *
            (node['Actual Loops'] ?? 1);
          const heavy = planNodes(plan).filter((node) => read(node) > MOST_ROWS);
          assert.deepEqual(
            heavy.map(
              (node) =>
                `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}: ${read(node)}`,
            ),
            [],
            'nodes that read the backlog',
          );
        } finally {
          await client.end();
        }
      });
    }
  }
});
