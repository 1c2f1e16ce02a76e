// The nudge adapter: starts nudge servers as child processes through `spawnServer` and acts as
// their producer, over HTTP (`POST /jobs`, `POST /nudge`) and plain SQL (`INSERT`).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { nudge } from '@nudge/client';
import { createStore } from '@nudge/store';
import type { BenchKind, BenchPayload, NudgeKind } from '../bench-job.js';
import type {
  RunningSystem,
  StartOptions,
  SystemContext,
  SystemSpec,
  SystemStorage,
} from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import type { IdRange, NudgeDatabase } from './nudge-database.js';
import { describeNudgeSettings, NUDGE_SETTINGS, nudgeServerEnv } from './nudge-settings.js';
import { PgNudgeDatabase } from './pg-nudge-database.js';
import { postJson } from './http-post.js';
import { ServerLogEcho } from './server-log-echo.js';
import { SqliteNudgeDatabase } from './sqlite-nudge-database.js';

/** The compiled handler module the servers load. */
const HANDLERS = fileURLToPath(new URL('../handlers.js', import.meta.url));

/** A running nudge: the common producer interface plus nudge's outbox path. */
export interface RunningNudge extends RunningSystem {
  /** {@link RunningSystem.enqueueBatch}, for nudge's own kinds too (`steps`). */
  enqueueBatch(kind: NudgeKind, payloads: readonly BenchPayload[]): Promise<void>;
  /** `DATABASE_URL` of the servers. */
  readonly databaseUrl: string;
  /** The servers' base URLs, such as `http://127.0.0.1:41234`. */
  readonly serverUrls: readonly string[];
  /**
   * Enqueues one job the outbox way: a plain `INSERT` of `(kind, payload)`, then `POST /nudge`
   * unless `wake` is false (on PostgreSQL the servers' `LISTEN` wakes them anyway).
   */
  enqueueOneOutbox(kind: BenchKind, payload: BenchPayload, wake?: boolean): Promise<void>;
  /**
   * Enqueues one job as a Node producer does: `@nudge/client`'s transactional enqueue into a
   * `pg.Pool` (or the SQLite file), then, when `wake` is true, the client's `nudge()` to one server
   * (on PostgreSQL the servers' `LISTEN` wakes them anyway).
   */
  enqueueOneClient(kind: BenchKind, payload: BenchPayload, wake: boolean): Promise<void>;
}

class NudgeInstances implements RunningNudge {
  readonly databaseUrl: string;
  readonly storage: SystemStorage;
  readonly #servers: ServerProcess[];
  readonly #echoes: ServerLogEcho[];
  readonly #db: NudgeDatabase;
  /** Ids enqueued since {@link unfinished} last saw them all succeed. */
  #open: IdRange | undefined;
  #openCount = 0;
  #next = 0;

  constructor(databaseUrl: string, servers: ServerProcess[], echoes: ServerLogEcho[], db: NudgeDatabase) {
    this.databaseUrl = databaseUrl;
    this.storage = databaseUrl.startsWith('sqlite:')
      ? { kind: 'sqlite' }
      : { kind: 'postgres', database: new URL(databaseUrl).pathname.slice(1) };
    this.#servers = servers;
    this.#echoes = echoes;
    this.#db = db;
  }

  get serverUrls(): readonly string[] {
    return this.#servers.map((server) => server.url);
  }

  #track(range: IdRange, count: number): void {
    this.#open = this.#open
      ? { first: Math.min(this.#open.first, range.first), last: Math.max(this.#open.last, range.last) }
      : range;
    this.#openCount += count;
  }

  async enqueueOne(kind: BenchKind, payload: BenchPayload): Promise<void> {
    const server = this.#servers[this.#next++ % this.#servers.length];
    if (!server) throw new Error('no nudge server is running');
    const job = (await postJson(`${server.url}/jobs`, { kind, payload })) as { id: number };
    this.#track({ first: job.id, last: job.id }, 1);
  }

  async enqueueOneOutbox(kind: BenchKind, payload: BenchPayload, wake = true): Promise<void> {
    this.#track(await this.#db.insertJobs(kind, [payload]), 1);
    if (wake) await this.wake();
  }

  async enqueueOneClient(kind: BenchKind, payload: BenchPayload, wake: boolean): Promise<void> {
    this.#track(await this.#db.enqueueJobs(kind, [payload]), 1);
    const server = this.#servers[this.#next++ % this.#servers.length];
    if (wake && server) await nudge(server.url);
  }

  servicePids(): readonly number[] {
    return this.#servers.map((server) => server.child.pid ?? 0).filter((pid) => pid > 0);
  }

  async enqueueBatch(kind: NudgeKind, payloads: readonly BenchPayload[]): Promise<void> {
    this.#track(await this.#db.enqueueJobs(kind, payloads), payloads.length);
  }

  async wake(): Promise<void> {
    await Promise.all(this.#servers.map((server) => postJson(`${server.url}/nudge`)));
  }

  async unfinished(): Promise<number> {
    if (!this.#open) return 0;
    const left = this.#openCount - (await this.#db.countSucceeded(this.#open));
    if (left === 0) {
      this.#open = undefined;
      this.#openCount = 0;
    }
    return left;
  }

  async stop(): Promise<void> {
    const codes = await Promise.all(this.#servers.map((server) => server.stop('SIGTERM', 30_000)));
    await this.#db.close();
    for (const echo of this.#echoes) echo.flush();
    const bad = codes.filter((code) => code !== 0);
    if (bad.length > 0) console.error(`  a nudge server exited with code ${bad.join(', ')}`);
  }
}

/** Starts `instances` nudge servers on one fresh database of `dialect`. */
async function startNudge(
  dialect: 'postgres' | 'sqlite',
  context: SystemContext,
  options: StartOptions = {},
): Promise<RunningNudge> {
  const sqliteFile = join(context.tmpDir, `nudge-${randomBytes(4).toString('hex')}.db`);
  const databaseUrl =
    dialect === 'postgres' ? await context.postgres.createDatabase() : `sqlite:${sqliteFile}`;
  const store = createStore(databaseUrl);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  await options.prepare?.(databaseUrl);
  const servers: ServerProcess[] = [];
  const echoes: ServerLogEcho[] = [];
  try {
    for (let i = 0; i < (options.instances ?? 1); i += 1) {
      const echo = new ServerLogEcho(`[nudge ${i}]`);
      echoes.push(echo);
      servers.push(
        await spawnServer({
          env: {
            ...nudgeServerEnv(NUDGE_SETTINGS),
            ...options.env,
            DATABASE_URL: databaseUrl,
            NUDGE_HANDLERS: HANDLERS,
            [REPORT_PORT_VARIABLE]: String(context.reportPort),
            ...options.route?.(databaseUrl),
          },
          onLine: echo.onLine,
        }),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    throw error;
  }
  const db = dialect === 'postgres' ? new PgNudgeDatabase(databaseUrl) : new SqliteNudgeDatabase(sqliteFile);
  return new NudgeInstances(databaseUrl, servers, echoes, db);
}

/** `nudge <commit>` of the checkout the bench runs from, or `nudge (this checkout)` outside git. */
function nudgeVersion(): string {
  try {
    const cwd = fileURLToPath(new URL('.', import.meta.url));
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', '../../../packages'], {
      cwd,
      encoding: 'utf8',
    });
    return `nudge ${commit}${dirty.trim() === '' ? '' : ' with uncommitted engine changes'}`;
  } catch {
    return 'nudge (this checkout)';
  }
}

/** nudge as a bench system on `dialect`. */
export function nudgeSystem(dialect: 'postgres' | 'sqlite'): SystemSpec & {
  start(context: SystemContext, options?: StartOptions): Promise<RunningNudge>;
} {
  return {
    id: dialect === 'postgres' ? 'nudge' : 'nudge-sqlite',
    label: dialect === 'postgres' ? 'nudge (PostgreSQL)' : 'nudge (SQLite)',
    cpuLabel: dialect === 'postgres' ? 'nudge (PostgreSQL)' : 'nudge (SQLite)',
    version: nudgeVersion(),
    configuration: describeNudgeSettings(NUDGE_SETTINGS),
    start: (context, options) => startNudge(dialect, context, options),
  };
}
