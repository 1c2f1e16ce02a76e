// The promise about LISTEN on PostgreSQL (docs/guides/operations.md): "The listener reconnects after
// its connection drops (and claims once on reconnecting, for notifications it missed)". A server process polls
// only every two minutes here, its LISTEN backend is terminated, and a row is inserted while the
// database refuses the listener's reconnection: only the claim on reconnecting can start it soon.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { adminPostgresUrl, createScratch, createTestDatabase, waitUntil } from '../helpers/index.js';
import { claimQueries, fileLines } from './server-http.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/handlers-gates.js', import.meta.url));

/** The poll interval, in ms: the next poll comes at least 90% of it (jitter) after the first claim. */
const POLL_MS = 120_000;

/**
 * Longest wait for the claim after connections are allowed again, in ms: the listener retries at
 * most 5 s apart (its backoff's cap), so this leaves 25 s of margin, and ends long before a poll.
 */
const RECONNECT_CLAIM_WITHIN_MS = 30_000;

/** How long the count of claim queries must stay unchanged to call the server's startup claims done, in ms. */
const CLAIMS_SETTLED_MS = 300;

/**
 * Resolves once the server has run a claim query and no other has finished for
 * {@link CLAIMS_SETTLED_MS}: the claims its start requested are over. A startup claim still in
 * flight when the row is inserted would otherwise claim it, and the test would prove nothing about
 * the reconnection (seen under load: the claim connection opened before the database refused
 * connections and ran its query after the insert).
 */
async function startupClaimsDone(server: string): Promise<void> {
  let last = -1;
  await waitUntil(
    async () => {
      const now = await claimQueries(server);
      const settled = now >= 1 && now === last;
      last = now;
      return settled ? true : undefined;
    },
    30_000,
    CLAIMS_SETTLED_MS,
    "the server's startup claims to finish",
  );
}

const LISTEN_BACKENDS = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;

describe('server process, LISTEN reconnect: postgres', () => {
  it('claims a row inserted while its LISTEN connection was down, on reconnecting, long before the next poll', async () => {
    const db = await createTestDatabase('postgres');
    const scratch = createScratch();
    const database = new URL(db.url).pathname.slice(1);
    const control = new pg.Client({ connectionString: db.url });
    // PostgreSQL refuses to change ALLOW_CONNECTIONS from a session of the database itself.
    const admin = new pg.Client({ connectionString: adminPostgresUrl() });
    let server: ServerProcess | undefined;
    try {
      const spawnedAt = Date.now();
      server = await spawnServer({
        env: {
          DATABASE_URL: db.url,
          NUDGE_HANDLERS: HANDLERS,
          NUDGE_THREADS: '1',
          NUDGE_POLL_INTERVAL_MS: String(POLL_MS),
          LOG_LEVEL: 'error',
        },
      });
      await control.connect();
      await admin.connect();
      const listener = await waitUntil(
        async () => (await control.query<{ pid: number }>(LISTEN_BACKENDS)).rows[0]?.pid,
        30_000,
        25,
        'the server to run LISTEN',
      );
      await startupClaimsDone(server.url);
      const file = join(scratch.dir, 'tally');
      let id: number;
      // Refused connections (superusers too) keep the listener from reconnecting before the row
      // is committed, so the row's notification reaches no listener: it is missed, not late.
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      try {
        await control.query('SELECT pg_terminate_backend($1)', [listener]);
        await waitUntil(
          async () => ((await control.query(LISTEN_BACKENDS)).rows.length === 0 ? true : undefined),
          10_000,
          10,
          'the LISTEN backend to end',
        );
        const inserted = await control.query<{ id: string }>(
          `INSERT INTO nudge_jobs (kind, payload) VALUES ('tally', $1) RETURNING id`,
          [{ file }],
        );
        id = Number(inserted.rows[0]?.id);
        assert.equal((await control.query(LISTEN_BACKENDS)).rows.length, 0, 'no listener at the commit');
      } finally {
        await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      }
      await waitUntil(
        async () => {
          const { rows } = await control.query<{ status: string }>(
            'SELECT status FROM nudge_jobs WHERE id = $1',
            [id],
          );
          return rows[0]?.status === 'SUCCEEDED' ? true : undefined;
        },
        RECONNECT_CLAIM_WITHIN_MS,
        25,
        `job ${id} to be claimed on reconnecting`,
      );
      assert.ok(
        Date.now() - spawnedAt < 0.9 * POLL_MS,
        'finished before the earliest second poll, so the poll did not claim it',
      );
      assert.deepEqual(fileLines(file), [String(id)], 'its handler ran once');
      assert.equal((await control.query(LISTEN_BACKENDS)).rows.length, 1, 'listening again');
    } finally {
      await server?.stop('SIGKILL');
      await control.end().catch(() => undefined);
      await admin.end().catch(() => undefined);
      await db.drop();
      scratch.remove();
    }
  });
});
