import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestDatabase } from './test-database.js';

/**
 * Runs plain SQL on a test database through the driver directly, as a producer in another
 * language would: no store code involved. `?` placeholders work on both dialects.
 */
export async function rawQuery<Row = Record<string, unknown>>(
  db: TestDatabase,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  if (db.dialect === 'sqlite') {
    const conn = new Database(db.url.slice('sqlite:'.length));
    conn.pragma('busy_timeout = 5000');
    try {
      const statement = conn.prepare(text);
      return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
    } finally {
      conn.close();
    }
  }
  let index = 0;
  const pgText = text.replace(/\?/g, () => `$${++index}`);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(pgText, params)).rows as Row[];
  } finally {
    await client.end();
  }
}
