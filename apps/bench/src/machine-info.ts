import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import pg from 'pg';

/** The machine and services a run measured on. */
export interface MachineInfo {
  readonly cpuModel: string;
  /** `os.availableParallelism()`. */
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly postgres: string;
  /** `undefined` when Redis was unreachable. */
  readonly redis: string | undefined;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine shows here. */
  readonly loadAverage: readonly number[];
}

/** Reads the machine's facts and the PostgreSQL server's version (through `postgresUrl`). */
export async function describeMachine(postgresUrl: string, redis: string | undefined): Promise<MachineInfo> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  let postgres: string;
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    postgres = rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: totalmem() / 1024 ** 3,
    os: `${type()} ${release()}`,
    node: process.version,
    postgres,
    redis,
    loadAverage: loadavg(),
  };
}
