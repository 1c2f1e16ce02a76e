// PostgreSQL finds the jobs waiting for a dependency through the partial GIN index on their
// depends_on lists (migration 0021), never by reading the table: not when a dependency succeeds
// and releases them, nor when it fails and the cancel cascades down a chain. GIN is read by
// bitmap scans only, which the store's sessions turn off; the dependency function turns them on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import { createMigratedDatabase, openStore, rawQuery, testPool } from '../helpers/index.js';

const FILLER = 20_000;
const CHAIN = 200;

interface Outcome {
  /** Sequential scans of nudge_jobs by the outcome's statement and its triggers. */
  readonly scans: number;
  /** The dependents' statuses right after it, by kind. */
  readonly statuses: Record<string, string[]>;
}

/** Runs `outcome` in a transaction with the store's session settings, then rolls it back. */
async function afterOutcome(url: string, outcome: string): Promise<Outcome> {
  const pool = testPool(url);
  const client = await pool.connect();
  try {
    for (const option of PG_PLANNER_OPTIONS.split(/\s*-c\s+/).filter(Boolean)) {
      const [name, value] = option.split('=');
      await client.query(`SET ${name} = ${value}`);
    }
    await client.query('BEGIN');
    await client.query(outcome);
    const scans = await client.query<{ n: string }>(
      `SELECT seq_scan AS n FROM pg_stat_xact_user_tables WHERE relname = 'nudge_jobs'`,
    );
    const rows = await client.query<{ kind: string; statuses: string[] }>(
      `SELECT kind, array_agg(DISTINCT status) AS statuses FROM nudge_jobs WHERE kind IN ('chain', 'runs') GROUP BY kind`,
    );
    await client.query('ROLLBACK');
    return {
      scans: Number(scans.rows[0]?.n ?? 0),
      statuses: Object.fromEntries(rows.rows.map((row) => [row.kind, row.statuses])),
    };
  } finally {
    client.release();
    await pool.end();
  }
}

describe(
  'the dependents index: postgres',
  { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' },
  () => {
    it(`releases and cascades at ${FILLER} jobs without reading the table`, async () => {
      const db = await createMigratedDatabase('postgres');
      const store = await openStore(db);
      try {
        await rawQuery(
          db,
          `INSERT INTO nudge_jobs (kind, status, finished_at) SELECT 'old', 'SUCCEEDED', now() FROM generate_series(1, ${FILLER})`,
        );
        const head = await store.enqueue({ kind: 'head' });
        await store.enqueueMany(
          Array.from({ length: CHAIN }, (_, i) => ({
            kind: 'chain',
            dependsOn: [i === 0 ? head.id : { index: i - 1 }],
          })),
        );
        await store.enqueue({ kind: 'runs', dependsOn: [head.id], onDependencyFailure: 'run' });
        await rawQuery(db, 'ANALYZE nudge_jobs');
        const finish = (status: string) =>
          `UPDATE nudge_jobs SET status = '${status}', finished_at = now() WHERE id = ${head.id}`;

        const succeeded = await afterOutcome(db.url, finish('SUCCEEDED'));
        assert.deepEqual(succeeded.statuses, { chain: ['PENDING', 'WAITING'], runs: ['PENDING'] });
        assert.equal(succeeded.scans, 0, 'the release read the table');

        const failed = await afterOutcome(db.url, finish('FAILED'));
        assert.deepEqual(failed.statuses, { chain: ['CANCELLED'], runs: ['PENDING'] });
        assert.equal(failed.scans, 0, 'the cascade read the table');
      } finally {
        await store.close();
        await db.drop();
      }
    });
  },
);
