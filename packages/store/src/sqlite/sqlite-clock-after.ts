import type Database from 'better-sqlite3';

const NOW = `SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now`;

/**
 * The database clock now, as stored text (milliseconds), returned once the clock has moved past
 * it: every row written afterwards carries a later time. A bulk retry takes it as its cutoff, so
 * a job it retried that fails again is never older than the cutoff. Waits at most about 1 ms,
 * synchronously (the clock is the process's own).
 */
export function sqliteClockAfter(db: Database.Database): string {
  const read = db.prepare<[], { now: string }>(NOW);
  const now = (): string => {
    const row = read.get();
    if (!row) throw new Error('SQLite returned no time');
    return row.now;
  };
  const cutoff = now();
  while (now() <= cutoff) {
    // Spin: the next millisecond is at most 1 ms away.
  }
  return cutoff;
}
