import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningSystem, SystemContext, SystemSpec } from '../bench-system.js';
import { formatNumber } from '../format-number.js';
import { nudgeSystem, type RunningNudge } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import {
  callsOf,
  callsPerMinute,
  databaseCommits,
  SCRAPE_STORE_METHODS,
  STATS_REPORT_LAG_MS,
  storeCalls,
} from './idle-load.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/** Peers whose idle load lands on PostgreSQL, where `xact_commit` counts it. */
const POSTGRES_PEERS = new Set(['graphile-worker', 'pg-boss', 'bullmq-postgres']);

interface IdleCase {
  readonly label: string;
  readonly spec: SystemSpec;
  readonly instances: number;
  /** nudge on SQLite: no PostgreSQL transactions to count, only the store's calls. */
  readonly sqlite?: boolean;
}

/** A duration for a label: whole minutes as `2 min`, anything else in seconds (`20 s`, `7.5 s`). */
function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`;
}

/** `context` with a `createDatabase` that also records the name of each database it makes. */
function recordingDatabases(context: SystemContext): { context: SystemContext; databases: string[] } {
  const databases: string[] = [];
  const postgres = context.postgres;
  return {
    databases,
    context: {
      ...context,
      postgres: {
        adminUrl: postgres.adminUrl,
        close: () => postgres.close(),
        createDatabase: async () => {
          const url = await postgres.createDatabase();
          databases.push(decodeURIComponent(new URL(url).pathname.slice(1)));
          return url;
        },
      },
    },
  };
}

/**
 * One idle window of `spec`: commits a minute in the system's own database, and nudge's store
 * calls by method. Nothing the bench does is counted. The pg_stat_database readings connect to
 * the admin database, never the one counted. nudge's `/metrics` is read once before the window
 * (on PostgreSQL {@link STATS_REPORT_LAG_MS} before it opens, so the server has reported that
 * scrape's transactions by then) and once after it closed; the scrapes' own store calls
 * ({@link SCRAPE_STORE_METHODS}) are left out of the breakdown.
 */
async function measureIdle(context: ScenarioContext, idle: IdleCase): Promise<ResultRow> {
  const { idleMs, idleSettleMs } = context.options;
  const recording = recordingDatabases(context.systemContext);
  return withSystem(
    idle.spec,
    recording.context,
    async (system: RunningSystem) => {
      const servers = 'serverUrls' in system ? (system as RunningNudge).serverUrls : undefined;
      const countCommits = !idle.sqlite;
      if (countCommits && recording.databases.length !== 1) {
        throw new Error(
          `${idle.label} made ${recording.databases.length} databases; the idle scenario counts one`,
        );
      }
      const adminUrl = context.systemContext.postgres.adminUrl;
      await sleep(idleSettleMs);
      const callsBefore = servers ? await storeCalls(servers) : new Map<string, number>();
      const callsFrom = performance.now();
      if (servers && countCommits) await sleep(STATS_REPORT_LAG_MS);
      const commitsBefore = countCommits ? await databaseCommits(adminUrl, recording.databases) : 0;
      const windowFrom = performance.now();
      await sleep(idleMs);
      const commitsAfter = countCommits ? await databaseCommits(adminUrl, recording.databases) : 0;
      const windowMs = performance.now() - windowFrom;
      // After the window closed, so this scrape's transactions are not in the commits.
      const callsAfter = servers ? await storeCalls(servers) : new Map<string, number>();
      const callsMs = performance.now() - callsFrom;
      const scrapeCalls = callsOf(callsBefore, callsAfter, SCRAPE_STORE_METHODS);
      const perMinute = callsPerMinute(callsBefore, callsAfter, callsMs, SCRAPE_STORE_METHODS);
      const calls = perMinute.reduce((sum, [, n]) => sum + n, 0);
      const perInstance =
        (countCommits ? ((commitsAfter - commitsBefore) * 60_000) / windowMs : calls) / idle.instances;
      const breakdown = perMinute
        .map(([method, n]) => `${method} ${formatNumber(n / idle.instances)}`)
        .join(', ');
      const leftOut = servers ? `; left out: the bench's ${scrapeCalls} scrape call(s) (countByStatus)` : '';
      context.log(
        `idle ${idle.label}: ${formatNumber(perInstance)} a minute per instance${breakdown ? ` (${breakdown})` : ''}${leftOut}`,
      );
      return {
        scenario: `idle, ${duration(idleMs)} window after ${duration(idleSettleMs)} settle`,
        system: idle.label,
        metric: idle.sqlite
          ? 'store calls a minute per instance, idle (lower is better)'
          : 'transactions committed a minute per instance, idle (lower is better)',
        value: formatNumber(perInstance),
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
  summary: `each system started and left idle for --idle-settle-ms (60 s; 5 s with --quick: start-up work done, a backing-off poll at its longest interval), then measured over a window of --idle-ms (120 s; 20 s with --quick): transactions committed a minute per instance in the system’s own database (pg_stat_database.xact_commit), and for nudge its store calls a minute by method (nudge_store_calls_total); nothing the bench does is counted: its pg_stat_database readings run in another database, its /metrics scrapes (one countByStatus per scrape per instance) come ${STATS_REPORT_LAG_MS / 1000} s before the window opens and after it closes, and their calls are taken out of the breakdown; nudge with 1 and 3 instances, on SQLite its store calls`,
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
