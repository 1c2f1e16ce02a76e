// The SQLite store's new-jobs listener reads PRAGMA data_version on the store's own connection:
// it wakes when another connection (a plain INSERT from another process, another store on the
// file) commits a change, never for the store's own writes, and never for a write transaction
// that changed nothing, so two idle instances on one file do not keep waking each other.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { SqliteStore, type NewJobsHandlers } from '@nudge/store';
import { createMigratedDatabase, waitUntil, type TestDatabase } from '../helpers/index.js';

/** Handlers that record each call, in order: `ready:false`, `wake`, `lost` … */
function recordingHandlers(): NewJobsHandlers & { readonly calls: string[]; wakes(): number } {
  const calls: string[] = [];
  return {
    calls,
    wakes: () => calls.filter((call) => call === 'wake').length,
    onWake: () => calls.push('wake'),
    onReady: (reconnected) => calls.push(`ready:${reconnected}`),
    onLost: () => calls.push('lost'),
  };
}

const INSERT_JOB = `INSERT INTO nudge_jobs (kind, payload) VALUES ('k', '{}')`;

describe('SQLite: the new-jobs listener reads PRAGMA data_version', () => {
  let db: TestDatabase;
  let path: string;
  let store: SqliteStore | undefined;
  const connections: Database.Database[] = [];

  /** A plain better-sqlite3 connection to the file, as another process's producer would hold. */
  const connect = (): Database.Database => {
    const connection = new Database(path);
    connection.pragma('busy_timeout = 5000');
    connections.push(connection);
    return connection;
  };

  const open = (): SqliteStore => {
    if (!store) throw new Error('no store outside a case');
    return store;
  };

  /** Starts the store's listener and waits for its first read: `onReady(false)`, then one wake. */
  const listen = async (
    handlers = recordingHandlers(),
  ): Promise<{ watcher: ReturnType<SqliteStore['listenForNewJobs']>; log: typeof handlers }> => {
    const watcher = open().listenForNewJobs(handlers);
    await waitUntil(() => (handlers.calls.length >= 2 ? true : undefined), 5_000, 5, 'the first read');
    assert.deepEqual(handlers.calls, ['ready:false', 'wake']);
    return { watcher, log: handlers };
  };

  beforeEach(async () => {
    db = await createMigratedDatabase('sqlite');
    path = db.url.slice('sqlite:'.length);
    store = new SqliteStore(path);
    await store.migrate();
  });
  afterEach(async () => {
    for (const connection of connections.splice(0)) connection.close();
    await store?.close();
    store = undefined;
    await db.drop();
  });

  it('a claim that matches no row, and the idle loop’s other empty writes, leave another connection’s data_version alone', async () => {
    const other = connect();
    const version = (): number => other.pragma('data_version', { simple: true }) as number;
    const changes = async (write: () => unknown): Promise<boolean> => {
      const before = version();
      await write();
      return version() !== before;
    };
    const claim = () =>
      open().claim({ workerId: 'w1', leaseMs: 60_000, groups: [{ kinds: ['k'], limit: 10 }] });

    assert.equal(await changes(claim), false, 'a claim on an empty table');
    // The control: the same check sees a real commit of the store.
    assert.equal(
      await changes(() => open().enqueueMany([{ kind: 'other' }, { kind: 'k', delayMs: 3_600_000 }])),
      true,
      'an enqueue',
    );
    assert.equal(await changes(claim), false, 'a claim that matches no row (another kind; a job not due)');
    assert.equal(
      await changes(() =>
        connect().exec(`BEGIN IMMEDIATE; UPDATE nudge_jobs SET status = 'RUNNING' WHERE id = -1; COMMIT`),
      ),
      false,
      'BEGIN IMMEDIATE, an UPDATE that matches nothing and COMMIT from a third connection',
    );
    assert.equal(await changes(() => open().promoteScheduled()), false, 'a promotion with nothing due');
    assert.equal(
      await changes(() => open().sweepExpired({ retryDelayMs: () => 1_000 })),
      false,
      'a sweep with no lease expired',
    );
    assert.equal(
      await changes(() => open().failUnhandledKinds({ graceMs: 300_000, instanceTtlMs: 30_000 })),
      false,
      'failing unhandled kinds within their grace',
    );
    assert.equal(await changes(() => open().pruneInstances(60_000)), false, 'pruning no instance');
    // After a checkpoint the next writer starts the WAL over; a transaction that writes no page
    // does not.
    other.pragma('wal_checkpoint(TRUNCATE)');
    assert.equal(await changes(claim), false, 'a claim that matches no row after a checkpoint');
    // An idle instance does write: each heartbeat stores its last_seen_at. A peer on the file is
    // woken once per heartbeat (a third of the lease), not once per poll.
    await open().registerInstance({ id: 'w1', host: 'h', pid: 1, kinds: ['k'] }, new Date(0));
    assert.equal(await changes(() => open().touchInstance('w1')), true, 'a heartbeat’s touchInstance');
  });

  it('wakes when another connection commits: a plain INSERT, then another store on the file', async () => {
    assert.equal(open().capabilities.supportsListen, true);
    const { log } = await listen();
    connect().exec(INSERT_JOB);
    await waitUntil(() => (log.wakes() >= 2 ? true : undefined), 5_000, 5, 'the wake of the INSERT');
    const second = new SqliteStore(path);
    try {
      await second.enqueue({ kind: 'k' });
      await waitUntil(() => (log.wakes() >= 3 ? true : undefined), 5_000, 5, 'the wake of the enqueue');
    } finally {
      await second.close();
    }
    assert.deepEqual(log.calls, ['ready:false', 'wake', 'wake', 'wake']);
  });

  it('the store’s own writes wake nothing: enqueue, claim, heartbeat, complete', async () => {
    const { watcher, log } = await listen();
    const s = open();
    await s.enqueue({ kind: 'k' });
    const [job] = await s.claim({ workerId: 'w1', leaseMs: 60_000, groups: [{ kinds: ['k'], limit: 1 }] });
    assert.ok(job, 'claimed the job');
    assert.equal((await s.heartbeat([job], 60_000)).length, 1);
    assert.equal((await s.complete([{ id: job.id, version: job.version, resultJson: null }])).length, 1);
    // The read the timer makes, made now: whatever the timer read meanwhile is in the log too.
    watcher.check();
    assert.deepEqual(log.calls, ['ready:false', 'wake'], 'no wake for the store’s own writes');
    // The same read sees another connection's commit (nothing runs between the two statements).
    connect().exec(INSERT_JOB);
    watcher.check();
    assert.deepEqual(log.calls, ['ready:false', 'wake', 'wake']);
  });

  it('close() stops it: no call for a later commit, from the timer or a direct read', async () => {
    const { watcher, log } = await listen();
    await watcher.close();
    connect().exec(INSERT_JOB);
    watcher.check();
    // A listener started now has the same interval, so its timer fires after the closed one's
    // would have: once it has woken for a later commit, a running timer would have read too.
    const { log: later } = await listen();
    connect().exec(INSERT_JOB);
    await waitUntil(() => (later.wakes() >= 2 ? true : undefined), 5_000, 5, 'the new listener’s wake');
    assert.deepEqual(log.calls, ['ready:false', 'wake'], 'the closed listener was not called');
  });

  it('stops without onLost once the store has closed its connection', async () => {
    const { watcher, log } = await listen();
    await open().close();
    store = undefined;
    watcher.check();
    assert.deepEqual(log.calls, ['ready:false', 'wake']);
  });
});
