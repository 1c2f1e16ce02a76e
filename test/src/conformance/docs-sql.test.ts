// Runs every SQL block the README and the guides offer operators and producers (watching the
// queue in docs/guides/operations.md, the idempotent insert in docs/guides/producers.md, the
// signal insert of the README), on each
// dialect the block names, against a table of known jobs, and checks every figure each query
// returns: the documented queries must work as printed and say what they claim.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { Dialect } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';

const ROOT = new URL('../../../', import.meta.url);
const GUIDES = new URL('docs/guides/', ROOT);
/** The README and every guide, one text. */
const DOCS = [
  new URL('README.md', ROOT),
  ...readdirSync(GUIDES)
    .filter((name) => name.endsWith('.md'))
    .map((name) => new URL(name, GUIDES)),
]
  .map((url) => readFileSync(url, 'utf8'))
  .join('\n');
const BLOCKS = [...DOCS.matchAll(/```sql\n(-- ([a-z, ]+)\n[\s\S]*?)```/g)].map((match) => ({
  sql: match[1] ?? '',
  dialects: (match[2] ?? '').split(',').map((d) => d.trim()) as Dialect[],
}));

/** What a documented block is for, told by its text; each purpose has its own check below. */
function purposeOf(sql: string): 'idempotent insert' | 'signal insert' | 'counts' | 'timings' | 'failed' {
  if (/^INSERT INTO nudge_jobs/m.test(sql)) return 'idempotent insert';
  if (/^INSERT INTO nudge_job_signals/m.test(sql)) return 'signal insert';
  if (/GROUP BY status/.test(sql)) return 'counts';
  if (/avg_wait_ms/.test(sql)) return 'timings';
  if (/WHERE status = 'FAILED'/.test(sql)) return 'failed';
  throw new Error(`a documented SQL block this test does not check; add its check:\n${sql}`);
}

/** A finished job of the known data: its wait (run_at → started_at) and run time, in ms. */
interface Finished {
  readonly kind: string;
  readonly status: 'SUCCEEDED' | 'FAILED';
  readonly waitMs: number;
  readonly runMs: number;
  /** Finished this long before the database's now, in ms. */
  readonly agoMs: number;
  readonly error?: string;
  readonly attempts?: number;
}

const MINUTE = 60_000;

/**
 * The known data. `report`: 20 successes waiting 100 … 2000 ms and running 40 … 800 ms;
 * `archive`: two successes; `ingest`: two failures; one more `report` outside the hour.
 */
const FINISHED: readonly Finished[] = [
  ...Array.from({ length: 20 }, (_, i) => ({
    kind: 'report',
    status: 'SUCCEEDED' as const,
    waitMs: 100 * (i + 1),
    runMs: 40 * (i + 1),
    agoMs: 30 * MINUTE - i * 1000,
  })),
  { kind: 'archive', status: 'SUCCEEDED', waitMs: 300, runMs: 1000, agoMs: 20 * MINUTE },
  { kind: 'archive', status: 'SUCCEEDED', waitMs: 500, runMs: 3000, agoMs: 19 * MINUTE },
  {
    kind: 'ingest',
    status: 'FAILED',
    waitMs: 200,
    runMs: 50,
    agoMs: 10 * MINUTE,
    error: 'disk full',
    attempts: 3,
  },
  {
    kind: 'ingest',
    status: 'FAILED',
    waitMs: 400,
    runMs: 150,
    agoMs: 5 * MINUTE,
    error: 'bad input',
    attempts: 1,
  },
  { kind: 'report', status: 'SUCCEEDED', waitMs: 9e6, runMs: 9e6, agoMs: 120 * MINUTE },
];

/**
 * Expected timings over the last hour, by kind. Averages are plain means. p95: PostgreSQL's
 * `percentile_cont(0.95)` interpolates at position 0.95 × (n − 1) (report waits: 1900 + 0.05 ×
 * 100); the SQLite block takes the smallest value whose `percent_rank` is at least 0.95.
 */
const TIMINGS: Record<Dialect, unknown[]> = {
  postgres: [
    { kind: 'archive', jobs: 2, avg_wait_ms: 400, p95_wait_ms: 490, avg_run_ms: 2000, p95_run_ms: 2900 },
    { kind: 'ingest', jobs: 2, avg_wait_ms: 300, p95_wait_ms: 390, avg_run_ms: 100, p95_run_ms: 145 },
    { kind: 'report', jobs: 20, avg_wait_ms: 1050, p95_wait_ms: 1905, avg_run_ms: 420, p95_run_ms: 762 },
  ],
  sqlite: [
    { kind: 'archive', jobs: 2, avg_wait_ms: 400, p95_wait_ms: 500, avg_run_ms: 2000, p95_run_ms: 3000 },
    { kind: 'ingest', jobs: 2, avg_wait_ms: 300, p95_wait_ms: 400, avg_run_ms: 100, p95_run_ms: 150 },
    { kind: 'report', jobs: 20, avg_wait_ms: 1050, p95_wait_ms: 2000, avg_run_ms: 420, p95_run_ms: 800 },
  ],
};

/** Writes the known data with plain SQL, times relative to the database clock `now`. */
async function insertKnownJobs(db: TestDatabase, now: Date): Promise<void> {
  const at = (ms: number): string => new Date(now.getTime() + ms).toISOString();
  const rows: unknown[][] = FINISHED.map((job) => {
    const finished = -job.agoMs;
    const started = finished - job.runMs;
    const attempts = job.attempts ?? 1;
    return [
      job.kind,
      job.status,
      at(started - job.waitMs),
      at(started),
      at(finished),
      attempts,
      attempts,
      job.error ?? null,
    ];
  });
  // Unfinished jobs: none of them is in the timings or the failed list.
  rows.push(
    ['report', 'PENDING', at(-MINUTE), null, null, 0, 5, null],
    ['report', 'PENDING', at(-MINUTE), null, null, 0, 5, null],
    ['report', 'PENDING', at(-MINUTE), null, null, 0, 5, null],
    ['report', 'RUNNING', at(-MINUTE), at(-1000), null, 1, 5, null],
    ['report', 'SCHEDULED', at(60 * MINUTE), null, null, 0, 5, null],
    ['report', 'CANCELLED', at(-3 * 60 * MINUTE), null, at(-2 * 60 * MINUTE), 0, 5, null],
  );
  await rawQuery(
    db,
    `INSERT INTO nudge_jobs (kind, status, run_at, started_at, finished_at, attempts, max_attempts, last_error)
     VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    rows.flat(),
  );
  // Job 42 of the README's signal insert, WAITING for the signal `approve` (ctx.waitForSignal)
  // until an hour from now.
  await rawQuery(
    db,
    "INSERT INTO nudge_jobs (id, kind, status, wait_signal, run_at) VALUES (42, 'publish', 'WAITING', 'approve', ?)",
    [at(60 * MINUTE)],
  );
}

/** A time as the driver returns it (PostgreSQL: `Date`; SQLite: ISO text), as ISO text. */
const isoOf = (value: unknown): string =>
  (value instanceof Date ? value : new Date(String(value))).toISOString();

/** `row` with the named fields as numbers (PostgreSQL returns `bigint` and `numeric` as text). */
function numbers(row: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return { ...row, ...Object.fromEntries(fields.map((field) => [field, Number(row[field])])) };
}

describe('the SQL of the README and the guides', () => {
  it('offers queries for both dialects, each of a purpose this test checks', () => {
    for (const dialect of DIALECTS) {
      const blocks = BLOCKS.filter((b) => b.dialects.includes(dialect));
      assert.deepEqual(
        [...new Set(blocks.map((b) => purposeOf(b.sql)))].sort(),
        ['counts', 'failed', 'idempotent insert', 'signal insert', 'timings'],
        `documented queries for ${dialect}`,
      );
    }
  });

  for (const dialect of DIALECTS) {
    it(`every ${dialect} query returns the figures of known jobs`, async () => {
      const db = await createMigratedDatabase(dialect);
      const store = await openStore(db);
      try {
        await insertKnownJobs(db, await store.now());
        const checked = new Set<string>();
        // The inserts first, whichever page holds them: the counts below include their effects.
        const first = (b: (typeof BLOCKS)[number]): number =>
          ['idempotent insert', 'signal insert'].includes(purposeOf(b.sql)) ? 0 : 1;
        const blocks = BLOCKS.filter((b) => b.dialects.includes(dialect)).sort((a, b) => first(a) - first(b));
        for (const block of blocks) {
          const purpose = purposeOf(block.sql);
          checked.add(purpose);
          const rows = await rawQuery(db, block.sql);
          switch (purpose) {
            case 'idempotent insert': {
              assert.equal(rows.length, 1, 'the first insert creates the job');
              const again = await rawQuery(db, block.sql);
              assert.deepEqual(again, [], 'the same key again inserts nothing');
              const keyed = await rawQuery<{ id: unknown }>(
                db,
                'SELECT id FROM nudge_jobs WHERE idempotency_key IS NOT NULL',
              );
              assert.deepEqual(
                keyed.map((row) => Number(row.id)),
                [Number(rows[0]?.id)],
              );
              break;
            }
            case 'signal insert': {
              const [job] = await rawQuery<{ status: string; wait_signal: string | null }>(
                db,
                'SELECT status, wait_signal FROM nudge_jobs WHERE id = 42',
              );
              assert.deepEqual(
                { ...job },
                { status: 'PENDING', wait_signal: null },
                'the signal released job 42',
              );
              const signals = await rawQuery<{ name: string; payload: unknown }>(
                db,
                'SELECT name, payload FROM nudge_job_signals WHERE job_id = 42',
              );
              assert.deepEqual(
                signals.map((s) => [
                  s.name,
                  typeof s.payload === 'string' ? (JSON.parse(s.payload) as unknown) : s.payload,
                ]),
                [['approve', { approvedBy: 'ada' }]],
              );
              break;
            }
            case 'counts':
              // Runs after the inserts: four PENDING `report` jobs, and job 42 the signal released.
              assert.deepEqual(
                rows.map((row) => numbers(row, ['jobs'])),
                [
                  { status: 'CANCELLED', jobs: 1 },
                  { status: 'FAILED', jobs: 2 },
                  { status: 'PENDING', jobs: 5 },
                  { status: 'RUNNING', jobs: 1 },
                  { status: 'SCHEDULED', jobs: 1 },
                  { status: 'SUCCEEDED', jobs: 23 },
                ],
              );
              break;
            case 'timings':
              assert.deepEqual(
                rows.map((row) =>
                  numbers(row, ['jobs', 'avg_wait_ms', 'p95_wait_ms', 'avg_run_ms', 'p95_run_ms']),
                ),
                TIMINGS[dialect],
              );
              break;
            case 'failed': {
              const ids = await rawQuery<{ id: unknown; last_error: string }>(
                db,
                `SELECT id, last_error FROM nudge_jobs WHERE status = 'FAILED'`,
              );
              const idOf = (error: string): number => Number(ids.find((row) => row.last_error === error)?.id);
              const now = (await store.now()).getTime();
              assert.deepEqual(
                rows.map((row) => ({
                  ...numbers(row, ['id', 'attempts', 'max_attempts']),
                  finished_at: Math.round((now - Date.parse(isoOf(row.finished_at))) / MINUTE),
                })),
                [
                  {
                    id: idOf('bad input'),
                    kind: 'ingest',
                    attempts: 1,
                    max_attempts: 1,
                    finished_at: 5,
                    last_error: 'bad input',
                  },
                  {
                    id: idOf('disk full'),
                    kind: 'ingest',
                    attempts: 3,
                    max_attempts: 3,
                    finished_at: 10,
                    last_error: 'disk full',
                  },
                ],
                'newest first; finished_at in minutes ago',
              );
              break;
            }
          }
        }
        assert.equal(checked.size, 5, `checked ${[...checked].join(', ')}`);
      } finally {
        await store.close();
        await db.drop();
      }
    });
  }
});
