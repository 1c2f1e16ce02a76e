import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import type { Dialect, EnqueueInput, Store } from '@nudge/store';
import { createTestDatabase, openStore, rawQuery, type TestDatabase } from '@nudge/test-databases';
import { installAudit, readAudit } from './audit.js';
import { analyse, type Fault, type FinalRow, type Findings } from './checks.js';
import { ledgerNow, readLedger } from './ledger.js';

/** The chaos handler module. */
export const CHAOS_HANDLERS = fileURLToPath(new URL('./chaos-handlers.js', import.meta.url));

/** Timers every instance of a cluster shares, in ms: short, so that faults resolve quickly. */
export interface ClusterTimers {
  readonly leaseMs: number;
  readonly sweepIntervalMs: number;
  readonly pollIntervalMs: number;
}

/** A service instance the cluster started. */
export interface Instance {
  readonly name: string;
  readonly server: ServerProcess;
  readonly pid: number;
  /** Set once the process exited. */
  exited: boolean;
  /** Its exit code once it exited (`null` for a signal). */
  exitCode?: number | null;
}

/**
 * Service instances as child processes (the real server, `apps/server/dist/main.js`) on one
 * fresh database with an audit trigger, a ledger folder their handlers record executions in,
 * and a log of the faults done to them. Every fault method records the fault before doing it.
 */
export class ChaosCluster {
  readonly db: TestDatabase;
  readonly store: Store;
  readonly timers: ClusterTimers;
  readonly ledgerDir: string;
  readonly faults: Fault[] = [];
  readonly instances = new Map<string, Instance>();
  readonly #baseEnv: Record<string, string>;
  #stopping = false;

  private constructor(db: TestDatabase, store: Store, timers: ClusterTimers, env: Record<string, string>) {
    this.db = db;
    this.store = store;
    this.timers = timers;
    this.ledgerDir = mkdtempSync(join(tmpdir(), 'nudge-chaos-'));
    this.#baseEnv = env;
  }

  /**
   * A fresh migrated database of `dialect` with the audit trigger (PostgreSQL: on the test
   * server, or the one `postgresAdminUrl` reaches); no instance yet.
   */
  static async create(
    dialect: Dialect,
    timers: ClusterTimers,
    env: Record<string, string> = {},
    postgresAdminUrl?: string,
  ): Promise<ChaosCluster> {
    const db = await createTestDatabase(dialect, postgresAdminUrl);
    const store = await openStore(db);
    await installAudit(db);
    return new ChaosCluster(db, store, timers, env);
  }

  /** `leaseMs + sweepIntervalMs + pollIntervalMs`: how long a dead holder's jobs may wait. */
  get recoveryBoundMs(): number {
    return this.timers.leaseMs + this.timers.sweepIntervalMs + this.timers.pollIntervalMs;
  }

  /** The database URL an instance named `name` uses (PostgreSQL: tagged with its `application_name`). */
  databaseUrl(name: string, url = this.db.url): string {
    if (this.db.dialect === 'sqlite') return url;
    const tagged = new URL(url);
    tagged.searchParams.set('application_name', `chaos-${name}`);
    return tagged.toString();
  }

  /**
   * Starts (or restarts) instance `name`; resolves once it listens (within `listenTimeoutMs`,
   * default the harness's 30 s).
   */
  async start(name: string, env: Record<string, string> = {}, listenTimeoutMs?: number): Promise<Instance> {
    const server = await spawnServer({
      ...(listenTimeoutMs === undefined ? {} : { listenTimeoutMs }),
      env: {
        DATABASE_URL: this.databaseUrl(name),
        NUDGE_HANDLERS: CHAOS_HANDLERS,
        NUDGE_CHAOS_LEDGER: this.ledgerDir,
        NUDGE_LEASE_MS: String(this.timers.leaseMs),
        NUDGE_SWEEP_INTERVAL_MS: String(this.timers.sweepIntervalMs),
        NUDGE_POLL_INTERVAL_MS: String(this.timers.pollIntervalMs),
        NUDGE_THREADS: '1',
        NUDGE_ASYNC_THREADS: '1',
        NUDGE_RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'error',
        ...this.#baseEnv,
        ...env,
      },
    });
    const instance: Instance = { name, server, pid: server.child.pid ?? 0, exited: false };
    this.instances.set(name, instance);
    void server.exited.then(() => {
      instance.exited = true;
      instance.exitCode = server.child.exitCode;
      // An exit nobody asked for (a handler killed its own process) interrupts like a kill.
      if (!this.#stopping && !this.faults.some((f) => f.pid === instance.pid && f.kind !== 'stop')) {
        this.faults.push({ pid: instance.pid, at: ledgerNow(), kind: 'crash' });
      }
    });
    return instance;
  }

  #instance(name: string): Instance {
    const instance = this.instances.get(name);
    if (!instance) throw new Error(`no instance named ${name}`);
    return instance;
  }

  /** SIGKILLs `name` and waits for it to exit. */
  async kill(name: string): Promise<void> {
    const instance = this.#instance(name);
    const fault: Fault = { pid: instance.pid, at: ledgerNow(), kind: 'kill' };
    this.faults.push(fault);
    await instance.server.stop('SIGKILL');
    fault.exitedAt = ledgerNow();
  }

  /** SIGSTOPs `name`: it keeps its connections and leases but runs nothing. */
  pause(name: string): void {
    const instance = this.#instance(name);
    this.faults.push({ pid: instance.pid, at: ledgerNow(), kind: 'stop' });
    instance.server.child.kill('SIGSTOP');
  }

  /** SIGCONTs `name`. */
  resume(name: string): void {
    const instance = this.#instance(name);
    const stop = this.faults.findLast((f) => f.pid === instance.pid && f.kind === 'stop');
    if (stop && stop.until === undefined) stop.until = ledgerNow();
    instance.server.child.kill('SIGCONT');
  }

  /** Records that `name` is cut off from the database from now on (the caller cuts it). */
  partitioned(name: string): void {
    this.faults.push({ pid: this.#instance(name).pid, at: ledgerNow(), kind: 'partition' });
  }

  /** Sends SIGTERM to `name`; resolves with its exit code (SIGKILL after `killAfterMs`). */
  async terminate(name: string, killAfterMs = 60_000): Promise<number> {
    const instance = this.#instance(name);
    this.faults.push({ pid: instance.pid, at: ledgerNow(), kind: 'terminate' });
    return instance.server.stop('SIGTERM', killAfterMs);
  }

  /** Asks every live instance to claim now (best effort: the poll loop is the guarantee). */
  async nudgeAll(): Promise<void> {
    await Promise.all(
      [...this.instances.values()]
        .filter((i) => !i.exited)
        .map((i) => fetch(`${i.server.url}/nudge`, { method: 'POST' }).catch(() => undefined)),
    );
  }

  /** Enqueues `inputs` in batches of 1,000 through the store; @returns the accepted ids. */
  async enqueue(inputs: readonly EnqueueInput[]): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < inputs.length; i += 1000) {
      const jobs = await this.store.enqueueMany(inputs.slice(i, i + 1000));
      ids.push(...jobs.map((job) => job.id));
    }
    return ids;
  }

  /**
   * Enqueues `inputs` at about `perSecond` (a batch every 100 ms), so that a backlog never hides
   * how fast interrupted jobs are recovered; @returns the accepted ids.
   */
  async enqueuePaced(inputs: readonly EnqueueInput[], perSecond: number): Promise<number[]> {
    const batch = Math.max(1, Math.round(perSecond / 10));
    const ids: number[] = [];
    const started = performance.now();
    for (let i = 0; i < inputs.length; i += batch) {
      ids.push(...(await this.enqueue(inputs.slice(i, i + batch))));
      const due = started + ((i + batch) / perSecond) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
    return ids;
  }

  /** Waits until no job is PENDING, SCHEDULED or RUNNING; @returns whether that happened within `timeoutMs`. */
  async drained(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await rawQuery<{ n: number | string }>(
        this.db,
        `SELECT count(*) AS n FROM nudge_jobs WHERE status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')`,
      );
      if (Number(row?.n) === 0) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * The jobs not finished yet, grouped: `"3 RUNNING work (first id 17, version ≤ 2); …"`, or
   * `"none"`.
   */
  async unfinished(): Promise<string> {
    const rows = await rawQuery<Record<string, unknown>>(
      this.db,
      `SELECT status, kind, count(*) AS n, min(id) AS first_id, max(version) AS max_version
         FROM nudge_jobs WHERE status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
        GROUP BY status, kind ORDER BY status, kind`,
    );
    if (rows.length === 0) return 'none';
    return rows
      .map(
        (r) =>
          `${String(r.n)} ${String(r.status)} ${String(r.kind)} (first id ${String(r.first_id)}, version ≤ ${String(r.max_version)})`,
      )
      .join('; ');
  }

  /**
   * Each live instance as a stuck drain needs it described: its slot gauges and the last lines it
   * logged (errors only, at the cluster's log level).
   */
  async #describeInstances(): Promise<string> {
    const lines: string[] = [];
    for (const instance of this.instances.values()) {
      const { stdout, stderr } = instance.server.output();
      const logged = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n    ');
      if (instance.exited) {
        const how = `exit code ${String(instance.exitCode)}, signal ${String(instance.server.child.signalCode)}`;
        lines.push(`instance ${instance.name} (pid ${instance.pid}) exited (${how})\n    ${logged}`);
        continue;
      }
      const metrics = await fetch(`${instance.server.url}/metrics`, { signal: AbortSignal.timeout(2_000) })
        .then((response) => response.text())
        .catch((error: unknown) => `no metrics: ${String(error)}`);
      const slots = metrics
        .split('\n')
        .filter((line) => /^nudge_slots_(busy|free)|^nudge_threads_lost_total/.test(line))
        .join(', ');
      lines.push(`instance ${instance.name} (pid ${instance.pid}): ${slots}\n    ${logged}`);
    }
    return lines.join('\n');
  }

  /**
   * Waits until every job finished, like {@link drained}.
   * @throws Error naming `what`, the jobs still unfinished after `timeoutMs`, and each live
   *   instance's slots and last log lines
   */
  async mustDrain(timeoutMs: number, what = 'the jobs'): Promise<void> {
    if (await this.drained(timeoutMs)) return;
    throw new Error(
      `${what} did not finish within ${timeoutMs / 1000} s: ${await this.unfinished()}\n${await this.#describeInstances()}`,
    );
  }

  /** Every job row as the checks read it. */
  async finalRows(): Promise<FinalRow[]> {
    const expired =
      this.db.dialect === 'sqlite'
        ? `lease_expires_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
        : `lease_expires_at < now()`;
    const rows = await rawQuery<Record<string, unknown>>(
      this.db,
      `SELECT id, status, version, result, (status = 'RUNNING' AND ${expired}) AS expired FROM nudge_jobs`,
    );
    return rows.map((row) => ({
      id: Number(row.id),
      status: String(row.status),
      version: Number(row.version),
      result: typeof row.result === 'string' ? (JSON.parse(row.result) as unknown) : row.result,
      leaseExpired: row.expired === true || Number(row.expired) === 1,
    }));
  }

  /** Runs the checks over the rows, the audit trail and the ledger. */
  async findings(accepted: readonly number[], repeating?: ReadonlySet<number>): Promise<Findings> {
    return analyse({
      accepted,
      rows: await this.finalRows(),
      audit: await readAudit(this.db),
      ledger: readLedger(this.ledgerDir),
      faults: this.faults,
      ...(repeating ? { repeating } : {}),
    });
  }

  /** Kills every instance still running, and removes the database and the ledger. */
  async close(): Promise<void> {
    this.#stopping = true;
    for (const instance of this.instances.values()) {
      instance.server.child.kill('SIGCONT');
      await instance.server.stop('SIGKILL');
    }
    await this.store.close();
    await this.db.drop();
    rmSync(this.ledgerDir, { recursive: true, force: true });
  }
}
