import pg from 'pg';
import { signal } from '@nudge/client';
import { APPROVE } from './durable-handlers.js';

/** What became of one signal a producer sent. */
export interface SignalSend {
  readonly jobId: number;
  /** The payload's token, unique to this send. */
  readonly token: string;
  /**
   * `committed` (the transaction's COMMIT returned), `rolled back` (the producer rolled it back,
   * as planned), or `refused` (the signal's insert threw, e.g. the job had finished; the
   * transaction then rolled back).
   */
  readonly outcome: 'committed' | 'rolled back' | 'refused';
  /** When the COMMIT or ROLLBACK returned, epoch ms (the wall clock, as the database's). */
  readonly at: number;
  /** The refusal's code. */
  readonly error?: string;
}

/** The table each signal's transaction writes a row to, as an application's own write beside it. */
export const APPROVALS_TABLE = 'chaos_approvals';

/**
 * Sends `approve` signals as an application does: inside its own transactions on its own
 * connections, with `@nudge/client`'s `signal()`, each beside a row of the application's
 * ({@link APPROVALS_TABLE}), and commits or rolls back as each send was planned. The signal
 * exists if and only if its transaction committed.
 */
export class SignalProducer {
  readonly #pool: pg.Pool;
  readonly #sends: SignalSend[] = [];
  readonly #pending = new Set<Promise<void>>();
  #tokens = 0;

  /** @param url - the database; `connections` at most at once */
  constructor(url: string, connections = 8) {
    this.#pool = new pg.Pool({ connectionString: url, max: connections });
  }

  /** Creates {@link APPROVALS_TABLE}. */
  async prepare(): Promise<void> {
    await this.#pool.query(`CREATE TABLE ${APPROVALS_TABLE} (job_id bigint NOT NULL, token text NOT NULL)`);
  }

  /** Sends a signal to `jobId` in `delayMs`, in a transaction that commits unless `rollback`. */
  schedule(jobId: number, delayMs: number, rollback: boolean): void {
    this.#tokens += 1;
    const token = `t${this.#tokens}`;
    const sent = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() =>
      this.#send(jobId, token, rollback),
    );
    this.#pending.add(sent);
    void sent.then(() => this.#pending.delete(sent));
  }

  /**
   * One send; never rejects: an error outside the signal's insert (the database is not faulted
   * in this scenario) is recorded as a refusal, and the checks then find its signal's row, if
   * it committed after all, among no committed send.
   */
  async #send(jobId: number, token: string, rollback: boolean): Promise<void> {
    try {
      await this.#transaction(jobId, token, rollback);
    } catch (error) {
      this.#sends.push({
        jobId,
        token,
        outcome: 'refused',
        at: Date.now(),
        error: `unexpected: ${String(error)}`,
      });
    }
  }

  async #transaction(jobId: number, token: string, rollback: boolean): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      try {
        await client.query(`INSERT INTO ${APPROVALS_TABLE} (job_id, token) VALUES ($1, $2)`, [jobId, token]);
        await signal(client, jobId, APPROVE, { token });
      } catch (error) {
        await client.query('ROLLBACK');
        const code = (error as { code?: unknown }).code;
        this.#sends.push({ jobId, token, outcome: 'refused', at: Date.now(), error: String(code ?? error) });
        return;
      }
      await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
      this.#sends.push({ jobId, token, outcome: rollback ? 'rolled back' : 'committed', at: Date.now() });
    } finally {
      client.release();
    }
  }

  /** Waits for every scheduled send; @returns them all, in the order they ended. */
  async settled(): Promise<readonly SignalSend[]> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
    return this.#sends;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
