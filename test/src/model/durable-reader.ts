// The model test's own connection to its database for durable steps: it reads every step row,
// signal and signal wait after each store call (what no store method lists at once), and sends
// signals as a producer does, with a plain SQL insert inside its own transaction, which commits
// or rolls back.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { StepStatus, StepType } from '@nudge/store';
import type { TestDatabase } from '../helpers/index.js';
import { canonicalJson } from './durable-state.js';

/** A step row as read. Times in epoch ms. */
export interface StepRow {
  readonly jobId: number;
  readonly name: string;
  readonly type: StepType;
  readonly status: StepStatus;
  readonly attempt: number;
  /** {@link canonicalJson} text, `null` for SQL `NULL`. */
  readonly result: string | null;
  readonly error: string | null;
  readonly startedMs: number;
  readonly endedMs: number | null;
  readonly wakeMs: number | null;
}

/** A signal row as read. */
export interface SignalRow {
  readonly jobId: number;
  readonly name: string;
  /** {@link canonicalJson} text. */
  readonly payload: string;
  readonly signalId: string | null;
}

/** Everything durable in the database: step rows by job then position, signals by id. */
export interface DurableRead {
  readonly steps: readonly StepRow[];
  readonly signals: readonly SignalRow[];
  /** `wait_signal` of each job that has one. */
  readonly waitSignals: ReadonlyMap<number, string>;
  /** The jobs marked `has_steps`. */
  readonly hasSteps: ReadonlySet<number>;
}

/** The reader and producer connection; see the file comment. */
export interface DurableReader {
  read(): Promise<DurableRead>;
  /**
   * Inserts a signal with plain SQL in a transaction of its own that commits, or rolls back
   * after the insert when `rollback`.
   * @returns `undefined` when the insert went through, else the database's error message (the
   *   transaction then rolled back)
   */
  insertSignal(
    jobId: number,
    name: string,
    payloadJson: string,
    rollback: boolean,
  ): Promise<string | undefined>;
  close(): Promise<void>;
}

const STEPS = {
  postgres: `SELECT job_id, name, type, status, attempt, result::text AS result, error,
       extract(epoch FROM started_at) * 1000 AS started, extract(epoch FROM ended_at) * 1000 AS ended,
       extract(epoch FROM wake_at) * 1000 AS wake
  FROM nudge_job_steps ORDER BY job_id, position`,
  sqlite: `SELECT job_id, name, type, status, attempt, result, error,
       started_at AS started, ended_at AS ended, wake_at AS wake
  FROM nudge_job_steps ORDER BY job_id, position`,
};
const SIGNALS = {
  postgres: 'SELECT job_id, name, payload::text AS payload, signal_id FROM nudge_job_signals ORDER BY id',
  sqlite: 'SELECT job_id, name, payload, signal_id FROM nudge_job_signals ORDER BY id',
};
const JOBS = 'SELECT id, wait_signal, has_steps FROM nudge_jobs WHERE wait_signal IS NOT NULL OR has_steps';
const INSERT = {
  postgres: 'INSERT INTO nudge_job_signals (job_id, name, payload) VALUES ($1, $2, $3::jsonb)',
  sqlite: 'INSERT INTO nudge_job_signals (job_id, name, payload) VALUES (?, ?, ?)',
};

/** A row as either driver reads these queries: text, numbers, flags and `NULL`. */
type Row = Record<string, string | number | boolean | null>;

/** Epoch ms of a time as read: PostgreSQL's epoch ms (text or number), SQLite's ISO text. */
function msOf(value: string | number | boolean | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Math.round(value);
  const text = String(value);
  return /^-?[\d.]+$/.test(text) ? Math.round(Number(text)) : Date.parse(text);
}

function rowsOf(steps: Row[], signals: Row[], jobs: Row[]): DurableRead {
  return {
    steps: steps.map((r) => ({
      jobId: Number(r.job_id),
      name: String(r.name),
      type: r.type as StepType,
      status: r.status as StepStatus,
      attempt: Number(r.attempt),
      result: r.result === null ? null : canonicalJson(JSON.parse(String(r.result))),
      error: r.error === null ? null : String(r.error),
      startedMs: msOf(r.started) ?? Number.NaN,
      endedMs: msOf(r.ended),
      wakeMs: msOf(r.wake),
    })),
    signals: signals.map((r) => ({
      jobId: Number(r.job_id),
      name: String(r.name),
      payload: r.payload === null ? 'null' : canonicalJson(JSON.parse(String(r.payload))),
      signalId: r.signal_id === null ? null : String(r.signal_id),
    })),
    waitSignals: new Map(
      jobs.filter((r) => r.wait_signal !== null).map((r) => [Number(r.id), String(r.wait_signal)]),
    ),
    hasSteps: new Set(jobs.filter((r) => r.has_steps === true || r.has_steps === 1).map((r) => Number(r.id))),
  };
}

/** Opens the reader's connection to `db` (migrated already). */
export async function openDurableReader(db: TestDatabase): Promise<DurableReader> {
  if (db.dialect === 'sqlite') {
    const conn = new Database(db.url.slice('sqlite:'.length));
    conn.pragma('busy_timeout = 5000');
    const [steps, signals, jobs, insert] = [STEPS.sqlite, SIGNALS.sqlite, JOBS, INSERT.sqlite].map((sql) =>
      conn.prepare(sql),
    );
    return {
      read: async () => rowsOf(steps!.all() as Row[], signals!.all() as Row[], jobs!.all() as Row[]),
      insertSignal: async (jobId, name, payloadJson, rollback) => {
        conn.exec('BEGIN IMMEDIATE');
        try {
          insert!.run(jobId, name, payloadJson);
        } catch (error) {
          conn.exec('ROLLBACK');
          return (error as Error).message;
        }
        conn.exec(rollback ? 'ROLLBACK' : 'COMMIT');
        return undefined;
      },
      close: async () => void conn.close(),
    };
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const all = async (sql: string) => (await client.query<Row>(sql)).rows;
  return {
    read: async () => rowsOf(await all(STEPS.postgres), await all(SIGNALS.postgres), await all(JOBS)),
    insertSignal: async (jobId, name, payloadJson, rollback) => {
      await client.query('BEGIN');
      try {
        await client.query(INSERT.postgres, [jobId, name, payloadJson]);
      } catch (error) {
        await client.query('ROLLBACK');
        return (error as Error).message;
      }
      await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
      return undefined;
    },
    close: () => client.end(),
  };
}
