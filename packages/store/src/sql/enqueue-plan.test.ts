import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { enqueuePlan, isSingleStatement } from './enqueue-plan.js';
import type { EnqueueRow } from './job-columns.js';
import type { ReturnedRow } from './returned-row.js';
import type { SqlDialect } from './sql-query.js';

/** Runs a plan, answering each INSERT as if every row was new; returns the statements' shapes. */
function statements(dialect: SqlDialect, jobs: readonly EnqueueRow[]) {
  const plan = enqueuePlan<ReturnedRow>(dialect, jobs, 'keys');
  const seen: Array<{ rows: number; params: number; sql: string }> = [];
  let nextId = 1;
  let offset = 0;
  let step = plan.next();
  while (!step.done) {
    const query = step.value;
    const rows =
      dialect === 'postgres'
        ? query.params.length === 1 && typeof query.params[0] === 'string' && query.params[0].startsWith('[')
          ? (JSON.parse(query.params[0]) as unknown[]).length
          : 1
        : (query.sql.match(/\),? ?\(|\) ON/g) ?? []).length;
    seen.push({ rows, params: query.params.length, sql: query.sql });
    const answer = jobs.slice(offset, offset + rows).map((job) => ({
      id: nextId++,
      kind: job.kind,
      ikey: job.idempotencyKey ?? null,
    }));
    offset += rows;
    step = plan.next(answer);
  }
  return { seen, results: step.value };
}

describe('enqueuePlan', () => {
  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`${dialect}: one INSERT per run of jobs that set the same fields, at most 1,000 rows each`, () => {
      const jobs: EnqueueRow[] = [
        ...Array.from({ length: 1500 }, () => ({ kind: 'a', payload: { n: 1 } })),
        { kind: 'b', priority: 2 },
        { kind: 'a', payload: { n: 2 } },
      ];
      const { seen, results } = statements(dialect, jobs);
      assert.deepEqual(
        seen.map((s) => s.rows),
        [1000, 500, 1, 1],
      );
      assert.ok(seen.every((s) => s.params <= 30_000));
      assert.deepEqual(
        results.map((r) => Number(r.row.id)),
        jobs.map((_, i) => i + 1),
      );
      assert.equal(isSingleStatement(dialect, jobs), false);
      assert.equal(isSingleStatement(dialect, jobs.slice(0, 1000)), true);
      assert.equal(
        isSingleStatement(dialect, [{ kind: 'a', idempotencyKey: 'k' }]),
        false,
        'a key may need a read-back',
      );
    });
  }
});

describe('enqueuePlan of dependents', () => {
  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`${dialect}: reads each dependency once a batch, inserts the jobs and (SQLite) their edges in one statement each, locks at the end`, () => {
      const jobs: EnqueueRow[] = Array.from({ length: 3 }, () => ({ kind: 'd', dependsOn: [7, 8] }));
      const plan = enqueuePlan<ReturnedRow>(dialect, jobs, 'keys');
      const seen: string[] = [];
      let nextId = 100;
      let step = plan.next();
      while (!step.done) {
        const { sql } = step.value;
        const kind = /^(SELECT id, status|WITH found|SELECT x\.value)/.test(sql)
          ? sql.includes('FOR SHARE') || seen.includes('read')
            ? 'lock'
            : 'read'
          : sql.startsWith('INSERT INTO nudge_jobs ')
            ? 'job'
            : sql.startsWith('INSERT INTO nudge_job_dependencies')
              ? 'edges'
              : sql.startsWith('UPDATE nudge_jobs SET has_dependents')
                ? 'mark'
                : sql;
        seen.push(kind);
        const answer =
          kind === 'read' || kind === 'lock'
            ? [7, 8].map((id) => ({ id, status: 'PENDING', kind: 'k', ikey: null }))
            : kind === 'job'
              ? jobs.map(() => ({ id: nextId++, kind: 'd', ikey: null }))
              : [];
        step = plan.next(answer);
      }
      // PostgreSQL writes no edges: an index on the jobs' own lists finds them.
      assert.deepEqual(
        seen,
        dialect === 'sqlite' ? ['read', 'job', 'edges', 'mark', 'lock'] : ['read', 'job', 'mark', 'lock'],
      );
      assert.deepEqual(
        step.value.map((r) => Number(r.row.id)),
        [100, 101, 102],
      );
    });
  }
});
