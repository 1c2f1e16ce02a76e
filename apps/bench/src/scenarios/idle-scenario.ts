import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { formatNumber } from '../format-number.js';
import { nudgeSystem, type RunningNudge } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import { callsPerMinute, serverCommits, storeCalls } from './idle-load.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/** Time after a start before the window opens, in ms: migrations, registration, first passes. */
const SETTLE_MS = 5_000;
/** Peers whose idle load lands on PostgreSQL, where `xact_commit` counts it. */
const POSTGRES_PEERS = new Set(['graphile-worker', 'pg-boss']);

interface IdleCase {
  readonly label: string;
  readonly spec: SystemSpec;
  readonly instances: number;
  /** nudge on SQLite: no PostgreSQL transactions to count, only the store's calls. */
  readonly sqlite?: boolean;
}

/** One idle window of `spec`: commits a minute on the server, and nudge's store calls by method. */
async function measureIdle(context: ScenarioContext, idle: IdleCase): Promise<ResultRow> {
  const windowMs = context.options.idleMs;
  return withSystem(
    idle.spec,
    context.systemContext,
    async (system: RunningSystem) => {
      const servers = 'serverUrls' in system ? (system as RunningNudge).serverUrls : undefined;
      await sleep(SETTLE_MS);
      const adminUrl = context.systemContext.postgres.adminUrl;
      const commitsBefore = idle.sqlite ? 0 : await serverCommits(adminUrl);
      const callsBefore = servers ? await storeCalls(servers) : new Map<string, number>();
      await sleep(windowMs);
      const commitsAfter = idle.sqlite ? 0 : await serverCommits(adminUrl);
      const callsAfter = servers ? await storeCalls(servers) : new Map<string, number>();
      const perMinute = callsPerMinute(callsBefore, callsAfter, windowMs);
      const calls = perMinute.reduce((sum, [, n]) => sum + n, 0);
      // The two readings of the server's counts are themselves two transactions.
      const commits = idle.sqlite ? calls : ((commitsAfter - commitsBefore - 2) * 60_000) / windowMs;
      const breakdown = perMinute
        .map(([method, n]) => `${method} ${formatNumber(n / idle.instances)}`)
        .join(', ');
      context.log(
        `idle ${idle.label}: ${formatNumber(commits / idle.instances)} a minute per instance${breakdown ? ` (${breakdown})` : ''}`,
      );
      return {
        scenario: `idle, ${formatNumber(windowMs / 60_000)} min window`,
        system: idle.label,
        metric: idle.sqlite
          ? 'store calls a minute per instance, idle (lower is better)'
          : 'transactions committed a minute per instance, idle (lower is better)',
        value: formatNumber(commits / idle.instances),
        ratio: '',
        lost: undefined,
        duplicate: undefined,
        runs: 1,
        note: breakdown ? `store calls a minute per instance: ${breakdown}` : '',
      };
    },
    { instances: idle.instances },
  );
}

/**
 * idle: what a service costs its database while no job arrives. nudge's store calls name their
 * source (`nudge_store_calls_total`): claim polls, heartbeats and the instance registry, sweeps,
 * promotions, schedules, retention.
 */
export const idleScenario: Scenario = {
  name: 'idle',
  summary:
    'each system started and left idle (after 5 s to settle) for the window: transactions PostgreSQL committed a minute (pg_stat_database.xact_commit over the whole server, per instance), and for nudge its store calls a minute by method (countByStatus is the bench’s own two reads of /metrics); nudge with 1 and 3 instances, on SQLite its store calls',
  run: async (context) => {
    const cases: IdleCase[] = [];
    const selected = new Set(context.systems.map((spec) => spec.id));
    if (selected.has('nudge')) {
      const spec = nudgeSystem('postgres');
      cases.push({ label: spec.label, spec, instances: 1 });
      cases.push({ label: `${spec.label}, 3 instances`, spec, instances: 3 });
    }
    if (selected.has('nudge-sqlite')) {
      const spec = nudgeSystem('sqlite');
      cases.push({ label: spec.label, spec, instances: 1, sqlite: true });
    }
    for (const spec of context.systems) {
      if (POSTGRES_PEERS.has(spec.id)) cases.push({ label: spec.label, spec, instances: 1 });
    }
    const rows: ResultRow[] = [];
    for (const idle of cases) rows.push(await measureIdle(context, idle));
    return rows;
  },
};
