import { performance } from 'node:perf_hooks';
import { PostgresStore } from '@nudge/store';
import { formatNumber, formatRatio } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';
import { insertDueRows, insertNotDueRows, NOT_DUE_STATUS } from './filler-rows.js';
import { againstEmptyRow } from './finished-rows-scenario.js';
import { nudgeDrains } from './nudge-drains.js';
import type { Scenario } from './scenario.js';

/** Single claims timed per table state. */
const CLAIM_SAMPLES = 25;

/**
 * Times {@link CLAIM_SAMPLES} claims of one row each through `PostgresStore.claim` (client round
 * trip included) after one untimed warm-up claim, completing each, so the table is as it was after.
 * @returns the median, in ms
 */
async function singleClaimMs(databaseUrl: string): Promise<number> {
  await insertDueRows(databaseUrl, CLAIM_SAMPLES + 1);
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
  return median(samples);
}

/** not-due-rows: do scheduled and backing-off jobs slow the claim of due ones? */
export const notDueRowsScenario: Scenario = {
  name: 'not-due-rows',
  summary: `nudge drain and a single claim with M jobs scheduled for tomorrow plus M waiting on a retry backoff (status ${NOT_DUE_STATUS}) against none`,
  run: async (context) => {
    const { notDueRows, drainJobs } = context.options;
    let emptyClaimMs = Number.NaN;
    let fullClaimMs = Number.NaN;
    const empty = await nudgeDrains(context, {
      label: 'not-due-rows: none',
      prepare: async (databaseUrl) => {
        emptyClaimMs = await singleClaimMs(databaseUrl);
      },
    });
    context.log(`not-due-rows: inserting 2 × ${formatNumber(notDueRows)} not-due rows…`);
    const full = await nudgeDrains(context, {
      label: `not-due-rows: 2 × ${formatNumber(notDueRows)}`,
      prepare: async (databaseUrl) => {
        await insertNotDueRows(databaseUrl, notDueRows);
        fullClaimMs = await singleClaimMs(databaseUrl);
      },
    });
    const scenario = `not-due-rows, drain ${formatNumber(drainJobs)}`;
    const withRows = `${formatNumber(notDueRows)} tomorrow + ${formatNumber(notDueRows)} in backoff`;
    const claimRow = (label: string, ms: number, baseline: boolean): ResultRow => ({
      scenario,
      system: 'PostgresStore.claim',
      metric: `single claim ms (median of ${CLAIM_SAMPLES}), ${label}`,
      value: formatNumber(ms),
      ratio: baseline ? '' : `${formatRatio(ms, emptyClaimMs)} of none`,
      lost: undefined,
      duplicate: undefined,
      runs: 1,
    });
    return [
      againstEmptyRow(scenario, 'no not-due rows', empty, empty),
      againstEmptyRow(scenario, withRows, full, empty),
      claimRow('no not-due rows', emptyClaimMs, true),
      claimRow(withRows, fullClaimMs, false),
    ];
  },
};
