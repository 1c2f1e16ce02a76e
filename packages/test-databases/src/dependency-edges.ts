import { rawQuery } from './raw-sql.js';
import type { TestDatabase } from './test-database.js';

/** One entry of the reverse lookup from a dependency to the jobs that wait for it. */
export interface DependencyEdge {
  readonly jobId: number;
  readonly dependsOnId: number;
}

/**
 * The reverse lookup from dependencies to their waiting jobs, as each dialect keeps it, sorted by
 * job then dependency. SQLite: the rows of `nudge_job_dependencies` (an edge per dependency that
 * had not succeeded). PostgreSQL: what its partial GIN index holds (migration 0021), every id in
 * the `depends_on` list of a `WAITING` job. Either way a job that left `WAITING` has none.
 */
export async function dependencyEdges(db: TestDatabase): Promise<DependencyEdge[]> {
  const rows = await rawQuery<{ job_id: number | string; depends_on_id: number | string }>(
    db,
    db.dialect === 'sqlite'
      ? 'SELECT job_id, depends_on_id FROM nudge_job_dependencies'
      : `SELECT j.id AS job_id, x.value::bigint AS depends_on_id
           FROM nudge_jobs AS j CROSS JOIN LATERAL jsonb_array_elements_text(j.depends_on) AS x
          WHERE j.status = 'WAITING'`,
  );
  return rows
    .map((row) => ({ jobId: Number(row.job_id), dependsOnId: Number(row.depends_on_id) }))
    .sort((a, b) => a.jobId - b.jobId || a.dependsOnId - b.dependsOnId);
}
