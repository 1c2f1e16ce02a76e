import Database from 'better-sqlite3';
import pg from 'pg';

/** On-disk size of nudge's jobs table, its indexes and its row count, at one moment. */
export interface JobsTableSize {
  /** The table's pages (with TOAST on PostgreSQL), in bytes. */
  readonly tableBytes: number;
  /** Every index of the table, in bytes. */
  readonly indexBytes: number;
  /** Rows in the table. */
  readonly rows: number;
  /** Rows not finished (`SCHEDULED`, `PENDING` or `RUNNING`). */
  readonly unfinished: number;
  /** Rows `SUCCEEDED`. */
  readonly succeeded: number;
}

const COUNTS = `SELECT count(*) AS n,
       count(*) FILTER (WHERE status IN ('SCHEDULED', 'PENDING', 'RUNNING')) AS unfinished,
       count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded
  FROM nudge_jobs`;

/**
 * Measures `nudge_jobs` of the database `databaseUrl` names: `pg_table_size` and
 * `pg_indexes_size` on PostgreSQL; on SQLite the pages each b-tree holds (the `dbstat` table),
 * which excludes pages on the file's free list (freed by deletes, reused by later inserts).
 */
export async function jobsTableSize(databaseUrl: string): Promise<JobsTableSize> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      const rows = db
        .prepare<[], { name: string; bytes: number }>(
          `SELECT s.name AS name, sum(s.pgsize) AS bytes FROM dbstat AS s
            WHERE s.name = 'nudge_jobs'
               OR s.name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'nudge_jobs')
            GROUP BY s.name`,
        )
        .all();
      const count = db.prepare<[], { n: number; unfinished: number; succeeded: number }>(COUNTS).get();
      return {
        tableBytes: rows.find((row) => row.name === 'nudge_jobs')?.bytes ?? 0,
        indexBytes: rows.filter((row) => row.name !== 'nudge_jobs').reduce((sum, row) => sum + row.bytes, 0),
        rows: count?.n ?? 0,
        unfinished: count?.unfinished ?? 0,
        succeeded: count?.succeeded ?? 0,
      };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_bytes: string; index_bytes: string }>(
      `SELECT pg_table_size('nudge_jobs') AS table_bytes, pg_indexes_size('nudge_jobs') AS index_bytes`,
    );
    const counts = await client.query<{ n: string; unfinished: string; succeeded: string }>(COUNTS);
    const row = rows[0];
    return {
      tableBytes: Number(row?.table_bytes ?? 0),
      indexBytes: Number(row?.index_bytes ?? 0),
      rows: Number(counts.rows[0]?.n ?? 0),
      unfinished: Number(counts.rows[0]?.unfinished ?? 0),
      succeeded: Number(counts.rows[0]?.succeeded ?? 0),
    };
  } finally {
    await client.end();
  }
}
