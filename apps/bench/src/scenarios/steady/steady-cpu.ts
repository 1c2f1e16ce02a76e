// CPU time of the parts of a steady run, read from `/proc` at the edges of its measured window.
import pg from 'pg';
import type { RunningSystem } from '../../bench-system.js';
import { cpuMsBetween, machineBusyMs, pidsNamed, processesCpuMs } from '../../process-cpu.js';

/** CPU time used so far by each part of a steady run, in ms (Linux `/proc`). */
export interface SteadyCpuReading {
  /** The system's own processes (nudge's servers, the peers' workers), by pid. */
  readonly service: ReadonlyMap<number, number>;
  /**
   * The database server's processes serving the system, by pid: PostgreSQL backends connected to
   * its database, or every `redis-server`; none for SQLite (it runs inside the service).
   */
  readonly database: ReadonlyMap<number, number>;
  /** This process: the producer's enqueue calls, plus receiving the handlers' reports. */
  readonly producerMs: number;
  /** Every core's busy time since boot. */
  readonly machineMs: number;
}

/** CPU per job of each part over a window, in µs per job; `database` is `NaN` for SQLite. */
export interface SteadyCpuPerJob {
  readonly serviceUs: number;
  readonly producerUs: number;
  readonly databaseUs: number;
  readonly machineUs: number;
}

/** Backends of `database` now, asked through the server's maintenance database at `adminUrl`. */
async function postgresBackendPids(adminUrl: string, database: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Reads the CPU time of each part of `system` now. The query for PostgreSQL backends runs from the
 * maintenance database, so its own backend is not counted.
 */
export async function readSteadyCpu(system: RunningSystem, adminUrl: string): Promise<SteadyCpuReading> {
  const storage = system.storage;
  let databasePids: number[] = [];
  if (storage.kind === 'postgres') databasePids = await postgresBackendPids(adminUrl, storage.database);
  else if (storage.kind === 'redis') databasePids = pidsNamed('redis-server');
  const usage = process.cpuUsage();
  return {
    service: processesCpuMs(system.servicePids()),
    database: processesCpuMs(databasePids),
    producerMs: (usage.user + usage.system) / 1000,
    machineMs: machineBusyMs(),
  };
}

/** CPU per job between two readings over which `jobs` jobs arrived, in µs per job. */
export function steadyCpuPerJob(
  before: SteadyCpuReading,
  after: SteadyCpuReading,
  jobs: number,
  hasDatabaseServer: boolean,
): SteadyCpuPerJob {
  const perJob = (ms: number): number => (ms * 1000) / jobs;
  return {
    serviceUs: perJob(cpuMsBetween(before.service, after.service)),
    producerUs: perJob(after.producerMs - before.producerMs),
    databaseUs: hasDatabaseServer ? perJob(cpuMsBetween(before.database, after.database)) : Number.NaN,
    machineUs: perJob(after.machineMs - before.machineMs),
  };
}
