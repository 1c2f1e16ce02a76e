// A page of a bulk command reads about the rows it changes, whatever the table holds besides:
// 20,000 succeeded jobs, 20,000 pending ones and 20,000 failed ones (200,000 on PostgreSQL). PostgreSQL proves it with
// EXPLAIN (ANALYZE) of a page in the middle of the walk; SQLite with the query plans.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { BULK_PAGE_SIZE } from '@nudge/store';
import {
  pgCancelPageSql,
  pgRetryPageSql,
  sqliteCancelPageSql,
  sqliteRetryPageSql,
} from '@nudge/store/statements';
import {
  createMigratedDatabase,
  rawQuery,
  openStore,
  type TestDatabase,
  planNodes,
  type PlanNode,
} from '../helpers/index.js';

const FINISHED = 20_000;
const MATCHING = 20_000;
/** Failed jobs on PostgreSQL: enough that a page is a small part of them, as in real use. */
const PG_FAILED = 200_000;

const PG_FILL = `
INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
SELECT CASE WHEN n % 2 = 0 THEN 'a' ELSE 'b' END, 'SUCCEEDED', 1, now() - n * interval '1 second'
  FROM generate_series(1, ${FINISHED}) AS n;
INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
SELECT CASE WHEN n % 2 = 0 THEN 'a' ELSE 'b' END, 'FAILED', 1, now() - n * interval '1 second'
  FROM generate_series(1, ${PG_FAILED}) AS n;
INSERT INTO nudge_jobs (kind) SELECT 'a' FROM generate_series(1, ${MATCHING});`;
const SQLITE_FILL = [
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FINISHED})
   INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
   SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'SUCCEEDED', 1,
          strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' seconds') FROM n`,
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${MATCHING})
   INSERT INTO nudge_jobs (kind, status, attempts, finished_at)
   SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'FAILED', 1,
          strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' seconds') FROM n`,
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${MATCHING})
   INSERT INTO nudge_jobs (kind) SELECT 'a' FROM n`,
];

describe('a bulk command page reads no more rows than it changes', () => {
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
    for (const fill of SQLITE_FILL) await rawQuery(sqliteDb, fill);
    await rawQuery(sqliteDb, 'ANALYZE');
  });
  after(async () => {
    await Promise.all([pgDb.drop(), sqliteDb.drop()]);
  });

  it('postgres: a retry page reads the finished index from its cursor, a cancel page the unfinished index', async () => {
    const client = new pg.Client({ connectionString: pgDb.url });
    await client.connect();
    try {
      const explain = async (text: string, values: unknown[]) => {
        await client.query('BEGIN');
        try {
          const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
            values,
          );
          const plan = rows[0]?.['QUERY PLAN'][0].Plan;
          assert.ok(plan);
          return planNodes(plan).filter(
            (n) => n['Relation Name'] === 'nudge_jobs' && n['Node Type'] !== 'ModifyTable',
          );
        } finally {
          await client.query('ROLLBACK');
        }
      };
      const cutoff = (await client.query<{ now: string }>('SELECT now()::text AS now')).rows[0]?.now;
      for (const [label, filters, extra] of [
        ['no other filter', [], []],
        ['a queue', ['queue = $8::text'], ['default']],
      ] as const) {
        const [cursor] = (
          await client.query<{ at: string; id: number }>(
            `SELECT finished_at::text AS at, id FROM nudge_jobs WHERE status = 'FAILED' AND kind = 'b'
              ORDER BY finished_at, id OFFSET 1000 LIMIT 1`,
          )
        ).rows;
        assert.ok(cursor);
        const nodes = await explain(pgRetryPageSql(filters), [
          'FAILED',
          cutoff,
          'b',
          cursor.at,
          cursor.id,
          BULK_PAGE_SIZE,
          null,
          ...extra,
        ]);
        const read = nodes.find((n) => n['Index Name'] === 'nudge_jobs_finished');
        assert.ok(read, `${label}: the page reads through nudge_jobs_finished: ${JSON.stringify(nodes)}`);
        // An incremental sort reads its input in groups of at least 32 rows: a few past the page.
        assert.ok((read['Actual Rows'] ?? 0) <= BULK_PAGE_SIZE + 64, `${label}: read ${read['Actual Rows']}`);
        assert.ok(
          nodes.every((n) => n['Node Type'] !== 'Seq Scan'),
          `${label}: no sequential scan`,
        );
      }
      const lastId = Number(
        (await client.query<{ m: string }>('SELECT max(id)::text AS m FROM nudge_jobs')).rows[0]?.m,
      );
      const cancel = await explain(pgCancelPageSql([]), [
        ['SCHEDULED', 'PENDING', 'RUNNING'],
        lastId,
        lastId - MATCHING + 1000,
        BULK_PAGE_SIZE,
        null,
      ]);
      const read = cancel.find((n) => n['Index Name'] === 'nudge_jobs_unfinished');
      assert.ok(read, `the cancel page reads through nudge_jobs_unfinished: ${JSON.stringify(cancel)}`);
      assert.ok((read['Actual Rows'] ?? 0) <= BULK_PAGE_SIZE, `read ${read['Actual Rows']}`);
      assert.ok(
        cancel.every((n) => n['Node Type'] !== 'Seq Scan'),
        'no sequential scan',
      );
    } finally {
      await client.end();
    }
  });

  it('sqlite: a retry page searches the finished index, a cancel page the unfinished index', () => {
    const conn = new Database(sqliteDb.url.slice('sqlite:'.length), { readonly: true });
    try {
      const params = {
        status: 'FAILED',
        statuses: '["PENDING"]',
        cutoff: '9999-01-01T00:00:00.000Z',
        after_kind: 'a',
        after_finished_at: '',
        after_id: 1000,
        last_id: 1_000_000,
        kind: 'a',
        queue: 'default',
        size: BULK_PAGE_SIZE,
      };
      const plan = (text: string) => {
        const statement = conn.prepare<Record<string, unknown>, { detail: string }>(
          `EXPLAIN QUERY PLAN ${text}`,
        );
        const named = Object.fromEntries(
          Object.entries(params).filter(([name]) => text.includes(`@${name}`)),
        );
        return statement.all(named).map((row) => row.detail);
      };
      for (const [label, details, index] of [
        ['retry, any kind', plan(sqliteRetryPageSql([])), 'nudge_jobs_finished'],
        ['retry, one kind', plan(sqliteRetryPageSql(['kind = @kind'])), 'nudge_jobs_finished'],
        ['cancel', plan(sqliteCancelPageSql(['queue = @queue'])), 'nudge_jobs_unfinished'],
      ] as const) {
        assert.ok(
          details.some((d) => new RegExp(`SEARCH nudge_jobs USING (COVERING )?INDEX ${index}`).test(d)),
          `${label} searches ${index}: ${details.join(' | ')}`,
        );
        assert.ok(
          details.every((d) => !/^SCAN nudge_jobs\b/.test(d) && !/USE TEMP B-TREE FOR ORDER BY/.test(d)),
          `${label} neither scans the table nor sorts: ${details.join(' | ')}`,
        );
      }
    } finally {
      conn.close();
    }
  });
});
