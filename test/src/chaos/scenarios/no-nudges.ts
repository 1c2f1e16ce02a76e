import { join } from 'node:path';
import { DIALECTS, rawQuery } from '@nudge/test-databases';
import { readLedger } from '../ledger.js';
import { readAccepted, startProducer } from '../producers.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { runInCluster } from '../run-scenario.js';

const POLL_MS = 1_000;
/** The idle poll's maximum: the bound on a job whose wake-up was lost, once the poll backed off. */
const IDLE_MAX_MS = 3_000;
const JOBS: Record<ChaosSize, number> = { test: 300, ci: 1_000, full: 5_000 };
/** Producers that die between their commit and their nudge. */
const DYING: Record<ChaosSize, number> = { test: 3, ci: 5, full: 20 };

/**
 * Scenario 13: no nudge ever arrives, and producers are killed between their commit and their
 * nudge: every job still starts within the idle poll maximum (+10 % jitter) + 1 s of its enqueue,
 * by the safety poll alone. On PostgreSQL the instance listens and its listener stays healthy (so
 * its poll backs off), but the trigger that notifies is disabled: every notification is lost. On
 * SQLite the instance does not watch the file for other writers (`NUDGE_LISTEN=false`).
 */
export const noNudges: Scenario = {
  id: 13,
  title: 'nudges dropped; producers killed between commit and nudge',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 13,
        title: noNudges.title,
        timers: { leaseMs: 5_000, sweepIntervalMs: 1_000, pollIntervalMs: POLL_MS },
        env: {
          NUDGE_LISTEN: dialect === 'postgres' ? 'true' : 'false',
          NUDGE_IDLE_POLL_MAX_MS: String(IDLE_MAX_MS),
          NUDGE_ASYNC_CONCURRENCY: '100',
        },
      },
      dialect,
      async (cluster) => {
        const instance = await cluster.start('a');
        if (dialect === 'postgres')
          await rawQuery(cluster.db, 'ALTER TABLE nudge_jobs DISABLE TRIGGER nudge_jobs_notify');
        const accepted = join(cluster.ledgerDir, 'accepted.txt');
        const producers = [startProducer([cluster.db.url, String(JOBS[size]), '10', accepted])];
        for (let i = 0; i < DYING[size]; i += 1) {
          producers.push(
            startProducer([cluster.db.url, '10', '1', accepted, instance.server.url, '--die-before-nudge']),
          );
        }
        const codes = await Promise.all(producers.map((p) => p.exited));
        const { ids, errors } = readAccepted(accepted);
        await cluster.mustDrain(30_000);
        const created = new Map(
          (
            await rawQuery<{ id: number; created_ms: number }>(
              cluster.db,
              dialect === 'sqlite'
                ? `SELECT id, CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) AS created_ms FROM nudge_jobs`
                : `SELECT id, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms FROM nudge_jobs`,
            )
          ).map((row) => [Number(row.id), Number(row.created_ms)]),
        );
        let worstWaitMs = 0;
        for (const entry of readLedger(cluster.ledgerDir)) {
          worstWaitMs = Math.max(worstWaitMs, entry.startedAt - (created.get(entry.id) ?? entry.startedAt));
        }
        return {
          accepted: ids,
          checks: {
            'every job started within the idle poll maximum + 1 s': worstWaitMs <= 1.1 * IDLE_MAX_MS + 1_000,
            'the dying producers died before their nudge': codes.slice(1).every((code) => code === 137),
            'no enqueue failed': errors.length === 0,
          },
          notes: { 'worst enqueue→start (ms)': worstWaitMs },
        };
      },
    ),
};
