import Database from 'better-sqlite3';
import pg from 'pg';
import { enqueuePlan, type EnqueueRow, type ReturnedRow, type SqlQuery } from '@nudge/store/sql';
import type { TestDatabase } from './databases.js';
import { planNodes, rowsRead, type PlanNode } from './query-plan.js';

/** One statement of an enqueue plan and how the database ran it. */
export interface ExplainedStatement {
  readonly sql: string;
  /** PostgreSQL: the plan's root, from `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`. */
  readonly plan?: PlanNode;
  /** SQLite: the `detail` lines of `EXPLAIN QUERY PLAN`. */
  readonly details?: readonly string[];
}

/** The rows the scans of `nudge_jobs` in `plan` read (a modify node reads nothing itself). */
export const jobRowsRead = (plan: PlanNode): number =>
  planNodes(plan)
    .filter((n) => n['Relation Name'] === 'nudge_jobs' && n['Node Type'] !== 'ModifyTable')
    .reduce((sum, n) => sum + rowsRead(n), 0);

/**
 * Runs the store's enqueue plan (`@nudge/store/sql`) of `jobs` on `db` in a transaction it rolls back, explaining
 * each statement before running it (PostgreSQL: `EXPLAIN ANALYZE` in a savepoint rolled back, on
 * a connection with `options`, such as the store's planner settings; SQLite: `EXPLAIN QUERY
 * PLAN`), and answers the statements in order.
 */
export async function explainEnqueue(
  db: TestDatabase,
  jobs: readonly EnqueueRow[],
  options?: string,
): Promise<ExplainedStatement[]> {
  const out: ExplainedStatement[] = [];
  const plan = enqueuePlan<ReturnedRow>(db.dialect, jobs, 'rows');
  if (db.dialect === 'sqlite') {
    const conn = new Database(db.url.slice('sqlite:'.length));
    try {
      conn.exec('BEGIN IMMEDIATE');
      let step = plan.next();
      while (!step.done) {
        const { sql, params } = step.value;
        const details = (
          conn.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>
        ).map((row) => row.detail);
        out.push({ sql, details });
        step = plan.next(conn.prepare(sql).all(...params) as ReturnedRow[]);
      }
    } finally {
      if (conn.inTransaction) conn.exec('ROLLBACK');
      conn.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: db.url, ...(options === undefined ? {} : { options }) });
  await client.connect();
  const run = async (query: SqlQuery) => (await client.query<ReturnedRow>(query.sql, [...query.params])).rows;
  try {
    await client.query('BEGIN');
    let step = plan.next();
    while (!step.done) {
      const { sql, params } = step.value;
      await client.query('SAVEPOINT explained');
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
        [...params],
      );
      await client.query('ROLLBACK TO SAVEPOINT explained');
      const root = rows[0]?.['QUERY PLAN'][0].Plan;
      if (!root) throw new Error('EXPLAIN answered no plan');
      out.push({ sql, plan: root });
      step = plan.next(await run(step.value));
    }
    await client.query('ROLLBACK');
    return out;
  } finally {
    await client.end();
  }
}
