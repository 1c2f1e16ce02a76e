import {
  sql,
  type ColumnType,
  type Generated,
  type InsertObject,
  type Kysely,
  type Transaction,
} from 'kysely';
import type { JsonValue } from '@nudge/core';
import type { EnqueuedJob, EnqueueInput } from '../store.js';
import type { StoredAttemptError } from '../stored-attempt-error.js';
import { pgRowToJob, type PgJobRow } from './pg-row.js';

/** The table as Kysely sees it. */
export interface PgSchema {
  nudge_jobs: Omit<PgJobRow, 'id' | 'payload' | 'queue' | 'progress' | 'errors'> & {
    id: Generated<number>;
    payload: string | JsonValue;
    queue: Generated<string>;
    progress: ColumnType<JsonValue | null, string | null, string | null>;
    errors: ColumnType<StoredAttemptError[], string | undefined, string>;
  };
  nudge_queues: { name: string; paused: Generated<boolean>; updated_at: Generated<Date> };
}

// Rows per INSERT: 7 columns each stays far below PostgreSQL's 65,535 bind parameters.
const INSERT_CHUNK = 1000;

/** Tries of insert-then-read for one key, in case the existing row vanishes in between. */
const KEY_TRIES = 3;

function toRow(input: EnqueueInput): InsertObject<PgSchema, 'nudge_jobs'> {
  // Columns left out take their defaults (the table has one for each).
  const row: Partial<InsertObject<PgSchema, 'nudge_jobs'>> = { kind: input.kind };
  // jsonb parameters go as JSON text: node-postgres would send a JS array as a PostgreSQL array.
  if (input.payload !== undefined) row.payload = JSON.stringify(input.payload);
  if (input.queue !== undefined) row.queue = input.queue;
  if (input.priority !== undefined) row.priority = input.priority;
  // A future run_at becomes SCHEDULED through the table's insert trigger.
  if (input.runAt !== undefined) row.run_at = input.runAt;
  // The database clock plus the delay, in the same statement; above 0 the trigger makes it SCHEDULED.
  else if (input.delayMs !== undefined) {
    row.run_at = sql<Date>`now() + (${input.delayMs}::double precision * interval '1 millisecond')`;
  }
  if (input.maxAttempts !== undefined) row.max_attempts = input.maxAttempts;
  if (input.idempotencyKey !== undefined) row.idempotency_key = input.idempotencyKey;
  return row as InsertObject<PgSchema, 'nudge_jobs'>;
}

type Db = Kysely<PgSchema> | Transaction<PgSchema>;

/** `INSERT … ON CONFLICT (kind, idempotency_key) WHERE … DO NOTHING RETURNING *`. */
function insertRows(db: Db, inputs: readonly EnqueueInput[]): Promise<PgJobRow[]> {
  return db
    .insertInto('nudge_jobs')
    .values(inputs.map(toRow))
    .onConflict((oc) =>
      oc.columns(['kind', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
    )
    .returningAll()
    .execute();
}

/** Rows holding any of `keys` (`[kind, key]` pairs); a fresh snapshot sees concurrent commits. */
async function existingRows(
  db: Db,
  keys: ReadonlyArray<readonly [string, string]>,
): Promise<Map<string, PgJobRow>> {
  const found = new Map<string, PgJobRow>();
  if (keys.length === 0) return found;
  const rows = (await db
    .selectFrom('nudge_jobs')
    .selectAll()
    .where(
      sql<boolean>`(kind, idempotency_key) IN (${sql.join(keys.map(([k, key]) => sql`(${k}, ${key})`))})`,
    )
    .execute()) as PgJobRow[];
  for (const row of rows) found.set(keyOf(row.kind, row.idempotency_key ?? ''), row);
  return found;
}

const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`;

/**
 * One job: a single statement without a key; with a key, the insert and, when the key existed,
 * a read of the existing job (in READ COMMITTED each statement sees what committed before it, and
 * `ON CONFLICT` waited for a concurrent insert of the same key to commit or roll back).
 */
export async function pgEnqueueOne(db: Kysely<PgSchema>, input: EnqueueInput): Promise<EnqueuedJob> {
  for (let tries = 0; tries < KEY_TRIES; tries += 1) {
    const [row] = await insertRows(db, [input]);
    if (row) return { ...pgRowToJob(row), created: true };
    const key = input.idempotencyKey ?? '';
    const existing = (await existingRows(db, [[input.kind, key]])).get(keyOf(input.kind, key));
    if (existing) return { ...pgRowToJob(existing), created: false };
  }
  throw new Error(
    `idempotency key ${JSON.stringify(input.idempotencyKey)} kept conflicting with a vanishing job`,
  );
}

/**
 * Many jobs in one transaction, multi-row inserts of up to 1,000 rows, returned in input order.
 * Rows come back from each insert in `VALUES` order (identity values ascend); a keyed job missing
 * from them existed already (or repeats an earlier job of the batch) and is read back.
 */
export async function pgEnqueueMany(
  db: Kysely<PgSchema>,
  inputs: readonly EnqueueInput[],
): Promise<EnqueuedJob[]> {
  return db.transaction().execute(async (trx) => {
    const results: Array<EnqueuedJob | undefined> = [];
    const missing: Array<{ index: number; kind: string; key: string }> = [];
    for (let start = 0; start < inputs.length; start += INSERT_CHUNK) {
      const chunk = inputs.slice(start, start + INSERT_CHUNK);
      const rows = (await insertRows(trx, chunk)).sort((a, b) => a.id - b.id);
      let next = 0;
      chunk.forEach((input, offset) => {
        const row = rows[next];
        const key = input.idempotencyKey;
        if (row && row.kind === input.kind && (row.idempotency_key ?? undefined) === key) {
          results.push({ ...pgRowToJob(row), created: true });
          next += 1;
        } else if (key !== undefined) {
          results.push(undefined);
          missing.push({ index: start + offset, kind: input.kind, key });
        } else {
          throw new Error('INSERT … RETURNING lost a row without an idempotency key');
        }
      });
    }
    const existing = await existingRows(
      trx,
      missing.map(({ kind, key }) => [kind, key] as const),
    );
    for (const { index, kind, key } of missing) {
      const row = existing.get(keyOf(kind, key));
      if (!row)
        throw new Error(`the job of idempotency key ${JSON.stringify(key)} vanished during the batch`);
      results[index] = { ...pgRowToJob(row), created: false };
    }
    return results as EnqueuedJob[];
  });
}
