import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { PostgresStore } from '@nudge/store';
import { buildPgClaim } from '@nudge/store/statements';
import { formatNumber, formatRatio } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';
import { insertDueRows, insertNotDueRows, NOT_DUE_STATUS, runSql } from './filler-rows.js';
import { againstEmptyRow } from './finished-rows-scenario.js';
import { nudgeDrains } from './nudge-drains.js';
import type { Scenario } from './scenario.js';

/** Single claims timed per table state. */
const CLAIM_SAMPLES = 100;

/** A single claim: its median time and the shared buffers its plan touched. */
interface ClaimCost {
  /** Median of {@link CLAIM_SAMPLES} claims, in ms, client round trip included. */
  readonly ms: number;
  /** Shared buffers (8 KiB pages) hit or read by one claim, from `EXPLAIN (ANALYZE, BUFFERS)`. */
  readonly buffers: number;
}

/**
 * Shared buffers one claim of one row touches: the claim statement under
 * `EXPLAIN (ANALYZE, BUFFERS)` in a transaction that is rolled back. A claim that scanned not-due
 * rows would touch more pages as they grow.
 */
async function claimBuffers(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const claim = buildPgClaim({ workerId: 'bench-claim-explain', leaseMs: 60_000, groups: [] }, [
      { kinds: ['noop'], limit: 1 },
    ]);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim.text}`,
      claim.values,
    );
    await client.query('ROLLBACK');
    const plan = rows[0]?.['QUERY PLAN'][0].Plan ?? {};
    return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Times {@link CLAIM_SAMPLES} claims of one row each through `PostgresStore.claim` (client round
 * trip included) after a `CHECKPOINT` (so writing out the rows just inserted does not compete) and
 * one untimed warm-up claim, completing each, so the table is as it was after.
 */
async function singleClaimCost(databaseUrl: string): Promise<ClaimCost> {
  await insertDueRows(databaseUrl, CLAIM_SAMPLES + 2);
  await runSql(databaseUrl, ['CHECKPOINT']);
  const buffers = await claimBuffers(databaseUrl);
  const store = new PostgresStore(databaseUrl, { poolSize: 1 });
  const samples: number[] = [];
  try {
    await store.ping();
    for (let i = 0; i <= CLAIM_SAMPLES; i += 1) {
      const start = performance.now();
      const jobs = await store.claim({
        workerId: 'bench-claim-timer',
        leaseMs: 60_000,
        groups: [{ kinds: ['noop'], limit: 1 }],
      });
      if (i > 0) samples.push(performance.now() - start);
      await store.complete(jobs.map((job) => ({ id: job.id, version: job.version, resultJson: null })));
    }
  } finally {
    await store.close();
  }
  return { ms: median(samples), buffers };
}

/** not-due-rows: do scheduled and backing-off jobs slow the claim of due ones? */
export const notDueRowsScenario: Scenario = {
  name: 'not-due-rows',
  summary: `nudge drain and a single claim with M jobs scheduled for tomorrow plus M waiting on a retry backoff (status ${NOT_DUE_STATUS}) against none`,
  run: async (context) => {
    const { notDueRows, drainJobs } = context.options;
    let emptyClaim: ClaimCost = { ms: Number.NaN, buffers: Number.NaN };
    let fullClaim: ClaimCost = emptyClaim;
    const empty = await nudgeDrains(context, {
      label: 'not-due-rows: none',
      prepare: async (databaseUrl) => {
        emptyClaim = await singleClaimCost(databaseUrl);
      },
    });
    context.log(`not-due-rows: inserting 2 × ${formatNumber(notDueRows)} not-due rows…`);
    const full = await nudgeDrains(context, {
      label: `not-due-rows: 2 × ${formatNumber(notDueRows)}`,
      prepare: async (databaseUrl) => {
        await insertNotDueRows(databaseUrl, notDueRows);
        fullClaim = await singleClaimCost(databaseUrl);
      },
    });
    const scenario = `not-due-rows, drain ${formatNumber(drainJobs)}`;
    const withRows = `${formatNumber(notDueRows)} tomorrow + ${formatNumber(notDueRows)} in backoff`;
    const claimRow = (label: string, cost: ClaimCost, baseline: boolean): ResultRow => ({
      scenario,
      system: 'PostgresStore.claim',
      metric: `single claim ms (median of ${CLAIM_SAMPLES}), ${label}`,
      value: formatNumber(cost.ms),
      ratio: baseline ? '' : `${formatRatio(cost.ms, emptyClaim.ms)} of none`,
      lost: undefined,
      duplicate: undefined,
      runs: 1,
      note: `EXPLAIN (ANALYZE, BUFFERS): ${cost.buffers} shared buffers per claim`,
    });
    return [
      againstEmptyRow(scenario, 'no not-due rows', empty, empty),
      againstEmptyRow(scenario, withRows, full, empty),
      claimRow('no not-due rows', emptyClaim, true),
      claimRow(withRows, fullClaim, false),
    ];
  },
};
