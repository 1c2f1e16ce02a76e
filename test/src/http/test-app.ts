import {
  createStore,
  type CancelJobsFilter,
  type Dialect,
  type EnqueueInput,
  type RetryJobsFilter,
  type RetrySteps,
  type SignalInput,
  type Store,
} from '@nudge/store';
import type { Enqueuer } from '@nudge/core';
import { createMigratedDatabase, createTestDatabase, type TestDatabase } from '@nudge/test-databases';
import { createHttpApp, NudgeMetrics, nudgeRoutes, type ApiKey, type NudgeHttpApp } from '@nudge/http';

/** An app on a fresh database of one dialect, for the route tests of `@nudge/http`. */
export interface TestApp {
  readonly app: NudgeHttpApp;
  readonly store: Store;
  /** The database the store writes to, for reading a column no view shows. */
  readonly db: TestDatabase;
  /**
   * Every route the app registered (collected with an `onRoute` hook, `HEAD` left out), with
   * `hidden` for those its OpenAPI document leaves out (the documentation UI's own).
   */
  readonly routes: readonly { method: string; url: string; hidden: boolean }[];
  /** How many times the routes called `requestClaim` or `enqueue` (each one a claim request). */
  readonly claimRequests: () => number;
  /** How many times the routes called the engine's `enqueue`. */
  readonly enqueues: () => number;
  /** Closes the app and the store, and drops the database. */
  close(): Promise<void>;
}

/** Kinds the test engine claims to have handlers for. */
export const TEST_KINDS: readonly string[] = ['echo', 'sendEmail'];

/**
 * Builds the app on a real store of `dialect` on a throwaway database (a new SQLite file, or a
 * new PostgreSQL database on the server `TEST_DATABASE_URL` names; migrated unless `migrate` is
 * false) with an engine stand-in that counts claim requests, and metrics without an engine (so
 * `GET /metrics` exists).
 */
export async function createTestApp(
  dialect: Dialect,
  options: {
    migrate?: boolean;
    bodyLimitBytes?: number;
    apiKeys?: readonly ApiKey[];
    rateLimitPerMinute?: number;
  } = {},
): Promise<TestApp> {
  const migrate = options.migrate ?? true;
  const db = migrate ? await createMigratedDatabase(dialect) : await createTestDatabase(dialect);
  const store = createStore(db.url);
  if (migrate) await store.migrate();
  let claims = 0;
  let enqueues = 0;
  const engine = {
    kinds: TEST_KINDS,
    requestClaim: () => void (claims += 1),
    enqueue: async (input: EnqueueInput, enqueuer?: Enqueuer) => {
      const job = await store.enqueue(input, enqueuer);
      claims += 1;
      enqueues += 1;
      return job;
    },
    cancel: (id: number) => store.cancelJob(id),
    retry: (id: number, steps?: RetrySteps) => store.retryJob(id, undefined, steps),
    cancelMany: (filter: CancelJobsFilter) => store.cancelJobs(filter),
    retryMany: (filter: RetryJobsFilter) => store.retryJobs(filter),
    sendSignal: async (input: SignalInput) => {
      const sent = await store.sendSignal(input);
      if (sent.created) claims += 1;
      return sent;
    },
    prepareEnqueue: (input: EnqueueInput) => input,
    enqueueMany: async (inputs: readonly EnqueueInput[], enqueuer?: Enqueuer) => {
      const jobs = await store.enqueueMany(inputs, enqueuer);
      claims += 1;
      return jobs;
    },
  };
  const metrics = new NudgeMetrics({ store, processMetrics: false });
  const app = createHttpApp({
    bodyLimitBytes: options.bodyLimitBytes,
    apiKeys: options.apiKeys,
    rateLimitPerMinute: options.rateLimitPerMinute,
  });
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook('onRoute', (route) => {
    // `hide` is @fastify/swagger's addition to the route schema, whose types this package lacks.
    const hidden = Reflect.get(route.schema ?? {}, 'hide') === true;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, hidden });
    }
  });
  await app.register(nudgeRoutes, { store, engine, metrics });
  await app.ready();
  return {
    app,
    store,
    db,
    routes,
    claimRequests: () => claims,
    enqueues: () => enqueues,
    close: async () => {
      await app.close();
      await store.close();
      await db.drop();
    },
  };
}

/** Parses a JSON response body into a record for assertions. */
export function jsonBody(response: { body: string }): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}
