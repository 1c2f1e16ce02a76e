// Retention reads only what it deletes: 20,000 finished jobs of a kind that is kept, and 30 old
// jobs of a kind that is pruned. PostgreSQL proves it with EXPLAIN (ANALYZE, BUFFERS) of the
// delete and of the kind listing; SQLite with their query plans.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  PG_FINISHED_KINDS,
  PG_PRUNE_FINISHED,
  SQLITE_FINISHED_KINDS,
  SQLITE_PRUNE_FINISHED,
} from '@nudge/store/statements';
import {
  createMigratedDatabase,
  rawQuery,
  openStore,
  type TestDatabase,
  planNodes,
  type PlanNode,
} from '../helpers/index.js';

const KEPT = 20_000;
const OLD = 30;
const LIMIT = 500;
const DAY_MS = 86_400_000;

// Finished rows written directly: the retention reads are about the table's shape, not how
// the rows got there.
const PG_FILL = `
INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
SELECT CASE WHEN n <= ${KEPT} THEN 'kept' ELSE 'old' END, 'SUCCEEDED', 1, now() - interval '2 days' - n * interval '1 second'
  FROM generate_series(1, ${KEPT + OLD}) AS n`;
const SQLITE_FILL = `
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${KEPT + OLD})
INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
SELECT CASE WHEN i <= ${KEPT} THEN 'kept' ELSE 'old' END, 'SUCCEEDED', 1,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days', '-' || i || ' seconds')
  FROM n`;

describe('retention reads no more rows than it deletes', () => {
  let pgDb: TestDatabase;
  let sqliteDb: TestDatabase;

  before(async () => {
    [pgDb, sqliteDb] = await Promise.all([
      createMigratedDatabase('postgres'),
      createMigratedDatabase('sqlite'),
    ]);
    for (const db of [pgDb, sqliteDb]) {
      const store = await openStore(db);
      await store.close();
    }
    await rawQuery(pgDb, PG_FILL);
    await rawQuery(pgDb, 'ANALYZE nudge_jobs');
    await rawQuery(sqliteDb, SQLITE_FILL);
    await rawQuery(sqliteDb, 'ANALYZE');
  });
  after(async () => {
    await Promise.all([pgDb.drop(), sqliteDb.drop()]);
  });

  it('postgres: the delete reads exactly its rows through the finished index, and the kinds take one probe each', async () => {
    const client = new pg.Client({ connectionString: pgDb.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      const explain = async (text: string, values: unknown[]) => {
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
          values,
        );
        const plan = rows[0]?.['QUERY PLAN'][0].Plan;
        assert.ok(plan);
        return planNodes(plan).filter(
          (n) => n['Relation Name'] === 'nudge_jobs' && n['Node Type'] !== 'ModifyTable',
        );
      };
      const prune = await explain(PG_PRUNE_FINISHED, ['SUCCEEDED', 'old', DAY_MS, null, LIMIT]);
      const read = prune.find((n) => n['Index Name'] === 'nudge_jobs_finished');
      assert.ok(read, `the delete reads through nudge_jobs_finished: ${JSON.stringify(prune)}`);
      assert.equal(read['Actual Rows'], OLD, 'index entries read = rows deleted');
      assert.equal(read['Rows Removed by Filter'] ?? 0, 0);
      assert.ok(
        prune.every((n) => n['Node Type'] !== 'Seq Scan'),
        'no sequential scan',
      );

      const kinds = await explain(PG_FINISHED_KINDS, []);
      assert.ok(kinds.length > 0 && kinds.every((n) => n['Node Type'] !== 'Seq Scan'), JSON.stringify(kinds));
      // Each probe reads one index entry; a scan of the kept kind would read 20,000.
      const entriesRead = kinds.reduce(
        (sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1),
        0,
      );
      assert.ok(entriesRead <= 10, `the kind listing read ${entriesRead} index entries`);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });

  it('sqlite: the delete and the kind listing search the finished index, never scan the table', () => {
    const conn = new Database(sqliteDb.url.slice('sqlite:'.length), { readonly: true });
    try {
      const plan = (text: string, params: Record<string, unknown>) =>
        conn
          .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${text}`)
          .all(params)
          .map((row) => row.detail);
      const prune = plan(SQLITE_PRUNE_FINISHED, {
        status: 'SUCCEEDED',
        kind: 'old',
        olderThanMs: DAY_MS,
        limit: LIMIT,
        now: null,
      });
      const kinds = plan(SQLITE_FINISHED_KINDS, {});
      for (const [name, details] of [
        ['prune', prune],
        ['kinds', kinds],
      ] as const) {
        assert.ok(
          details.some((d) => /SEARCH j?\s*.*USING (COVERING )?INDEX nudge_jobs_finished/.test(d)),
          `${name} searches nudge_jobs_finished: ${details.join(' | ')}`,
        );
        assert.ok(
          details.every((d) => !/^SCAN (nudge_jobs|j)\b/.test(d)),
          `${name} never scans the jobs table: ${details.join(' | ')}`,
        );
      }
    } finally {
      conn.close();
    }
  });

  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`${dialect}: the store lists both kinds and deletes the old ones only`, async () => {
      const db = dialect === 'postgres' ? pgDb : sqliteDb;
      const store = await openStore(db);
      try {
        assert.deepEqual(await store.finishedKinds(), [
          { status: 'SUCCEEDED', kind: 'kept' },
          { status: 'SUCCEEDED', kind: 'old' },
        ]);
        assert.equal(
          await store.pruneFinished({ status: 'SUCCEEDED', kind: 'old', olderThanMs: DAY_MS, limit: LIMIT }),
          OLD,
        );
        assert.deepEqual(await store.finishedKinds(), [{ status: 'SUCCEEDED', kind: 'kept' }]);
      } finally {
        await store.close();
      }
    });
  }
});
