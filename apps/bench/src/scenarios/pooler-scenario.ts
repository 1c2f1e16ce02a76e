import { startPgBouncer } from '@nudge/test-databases/pgbouncer';
import { formatNumber, formatRatio } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { Scenario } from './scenario.js';
import { withSystem } from './with-system.js';
import { nudgeSystem } from '../nudge/nudge-system.js';

/**
 * PgBouncer's server connections per database: above what one instance opens (10 main, 2 for
 * claims, 3 for outcomes), so the pooler's own limit is not what is measured; the pgbouncer test checks the
 * tight pool of 2.
 */
const POOL_SIZE = 20;

/**
 * pooler: nudge's drain with `DATABASE_URL` through PgBouncer 1.18 in transaction mode (no
 * prepared statements, no session settings, durable outcome commits; `LISTEN` direct through
 * `NUDGE_LISTEN_URL`) against the same drain connected directly, alternating, one run each per
 * `--repeat`.
 */
export const poolerScenario: Scenario = {
  name: 'pooler',
  summary: `nudge's drain through PgBouncer (transaction mode, pool of ${POOL_SIZE}) against a direct connection`,
  run: async (context) => {
    const { drainJobs, repeat } = context.options;
    const bouncer = await startPgBouncer({
      upstreamUrl: context.systemContext.postgres.adminUrl,
      poolMode: 'transaction',
      poolSize: POOL_SIZE,
    });
    const runs: Record<'direct' | 'pooled', DrainMeasurement[]> = { direct: [], pooled: [] };
    try {
      const routes = {
        direct: undefined,
        pooled: (databaseUrl: string) => ({
          DATABASE_URL: bouncer.url(new URL(databaseUrl).pathname.slice(1)),
          NUDGE_LISTEN_URL: databaseUrl,
        }),
      };
      for (let i = 0; i < repeat; i += 1) {
        for (const path of ['direct', 'pooled'] as const) {
          const route = routes[path];
          const run = await withSystem(
            nudgeSystem('postgres'),
            context.systemContext,
            (system) => measureDrain(system, context.listener, 'noop', drainJobs),
            route ? { route } : {},
          );
          context.log(`pooler: ${path} #${i + 1}: ${formatNumber(run.jobsPerSecond)} jobs/s`);
          runs[path].push(run);
        }
      }
    } finally {
      await bouncer.stop();
    }
    const direct = median(runs.direct.map((run) => run.jobsPerSecond));
    const pooled = median(runs.pooled.map((run) => run.jobsPerSecond));
    const row = (path: 'direct' | 'pooled', value: number, ratio: string, note: string): ResultRow => ({
      scenario: `pooler ${formatNumber(drainJobs)} jobs`,
      system:
        path === 'direct' ? 'nudge (PostgreSQL), direct' : `nudge (PostgreSQL), PgBouncer transaction mode`,
      metric: 'drain jobs/s',
      value: formatNumber(value),
      ratio,
      lost: runs[path].reduce((sum, run) => sum + run.lost, 0),
      duplicate: runs[path].reduce((sum, run) => sum + run.duplicate, 0),
      runs: runs[path].length,
      note,
    });
    return [
      row('direct', direct, '', 'prepared statements, session settings, outcomes without a disk flush'),
      row(
        'pooled',
        pooled,
        `${formatRatio(pooled, direct)} of direct`,
        `pool of ${POOL_SIZE}; unnamed statements, durable outcome commits; LISTEN direct`,
      ),
    ];
  },
};
