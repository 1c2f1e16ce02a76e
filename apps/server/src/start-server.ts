import { Engine, instanceLiveWithinMs } from '@nudge/engine';
import { dashboardPlugin } from '@nudge/dashboard';
import { createHttpApp, NudgeMetrics, nudgeRoutes, type NudgeHttpApp } from '@nudge/http';
import { countStoreCalls, createStore, type Store } from '@nudge/store';
import type { ServerConfig } from './config.js';
import type { ServiceTracing } from './tracing/start-tracing.js';
import { resolveServerOptions, type ServerOptions } from './server-options.js';
import { NUDGE_VERSION } from './nudge-version.js';
import { BY_VARIABLE, inSettingTerms, type SettingNamer } from './setting-names.js';
import { engineSettingsOf, isEngineSetting } from './settings/settings.js';

/** A server started by {@link startServer}: listening and claiming until {@link RunningServer.close}. */
export interface RunningServer {
  /** The Fastify app, listening; `app.log` is the server's logger. */
  readonly app: NudgeHttpApp;
  /** The engine: its threads, claim loop and background services; `engine.on(…)` for its events. */
  readonly engine: Engine;
  /** The migrated store; closed by {@link RunningServer.close}. */
  readonly store: Store;
  /** Base URL of the API, such as `http://127.0.0.1:3000`; with port 0, the port bound. */
  readonly url: string;
  /**
   * Graceful stop, in order: closes the HTTP server (no new connections; requests in flight
   * finish), stops the engine (running jobs get `shutdownGraceMs`, then are released to
   * `PENDING`), closes the store. Idempotent: every call returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Starts the service in this process, as `nudge serve` does, from typed options instead of the
 * environment (which it never reads): checks every option as the environment's variables are
 * checked (same forms, defaults and limits), then opens and migrates the database, starts the
 * handler threads, listens, and starts claiming. Stop it with `close()`; it installs no signal
 * handler.
 *
 * @example
 * ```ts
 * import { startServer } from '@nudge/server';
 *
 * const server = await startServer({
 *   handlers: './handlers.mjs', // NUDGE_HANDLERS, relative to the working directory
 *   databaseUrl: 'postgres://app@db:5432/app', // DATABASE_URL; default sqlite:./data/nudge.db
 *   port: 0, // PORT; 0 picks a free port; default 3000
 *   engine: { threads: 2, leaseMs: 60_000 }, // NUDGE_THREADS, NUDGE_LEASE_MS: the engine's settings
 * });
 * console.log(server.url); // http://127.0.0.1:41234
 * await server.close();
 * ```
 *
 * @param options - `handlers`, the server's settings by name, and the engine's in `engine` (see
 *   {@link ServerOptions} and `docs/reference/settings.md`); each one left out takes its default
 * @returns the server, listening on {@link RunningServer.url}, once it claims jobs
 * @throws NudgeError `INVALID_CONFIG` naming each invalid option, such as
 *   `engine.threads must be a whole number from 1 to 1024 (got 0)`, or when `host` is not a loopback
 *   address while `apiKeys` is empty and `allowUnauthenticated` is not `true`
 * @throws TypeError when `options` names no setting
 * @throws NudgeError `INVALID_CONFIG` starting `schedules: ` when a schedule is of a kind the
 *   handler module lacks or has the name of one of its schedules
 * @throws NudgeError `SCHEMA_TOO_NEW` when the database was migrated by a newer nudge
 * @throws NudgeError `HANDLERS_INVALID` when the handler module cannot be loaded
 * @throws Error when the database is unreachable or the address cannot be bound (`EADDRINUSE`)
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const inEngine = new Set(Object.keys(options.engine ?? {}));
  return startConfiguredServer(resolveServerOptions(options), (setting) =>
    isEngineSetting(setting) && inEngine.has(setting) ? `engine.${setting}` : setting,
  );
}

/**
 * Starts the service in this process from a parsed configuration (`loadConfig`'s, or
 * {@link startServer}'s options resolved): opens the store `config.databaseUrl` names and migrates
 * it, starts the engine's threads on the handler module, registers the routes, listens on
 * `host:port`, then starts claiming, and logs one `info` line:
 * `listening on http://HOST:PORT (sqlite, 4 threads, kinds: a, b)`, then one line on API keys
 * (a warning when there are none: the API is open, which `loadConfig` allows on a loopback
 * `HOST` only, unless `NUDGE_ALLOW_UNAUTHENTICATED=true`). `GET /metrics` counts this engine's
 * events (see `NudgeMetrics`).
 *
 * The engine starts only once the port is bound, so a server that cannot listen never claims a
 * job. On any failure, whatever was started is stopped again before the error is rethrown.
 *
 * Messages about a setting (a bad schedule of `NUDGE_SCHEDULES` for the handler module's kinds,
 * an unknown API key) name it as `nameOf` does: by its environment variable unless told otherwise.
 *
 * With `tracing` (an OpenTelemetry SDK started before, see `startTracing`), enqueues get `send`
 * spans and attempts `process <kind>` spans, and closing the server flushes the SDK last.
 *
 * @param nameOf - what messages call a setting (default: its environment variable)
 * @param tracing - the started SDK; @defaultValue none: no spans
 * @throws NudgeError `INVALID_CONFIG` (or the job contract's code) naming the schedules setting
 *   when a configured schedule is of a kind the handler module lacks, or has the name of one of
 *   the module's schedules

 * @throws NudgeError `SCHEMA_TOO_NEW` when the database was migrated by a newer nudge
 * @throws NudgeError `HANDLERS_INVALID` when the handler module cannot be loaded
 * @throws Error when the database is unreachable or the address cannot be bound (`EADDRINUSE`)
 */
export async function startConfiguredServer(
  config: ServerConfig,
  nameOf: SettingNamer = BY_VARIABLE,
  tracing?: ServiceTracing,
): Promise<RunningServer> {
  const app = createHttpApp({
    logger: { level: config.logLevel },
    bodyLimitBytes: config.bodyLimitBytes,
    apiKeys: config.apiKeys,
    rateLimitPerMinute: config.rateLimitPerMinute,
    settingNames: { apiKeys: nameOf('apiKeys') },
  });
  let metrics: NudgeMetrics | undefined;
  // Every call counted by method (nudge_store_calls_total): which source loads the database.
  const store = countStoreCalls(
    createStore(config.databaseUrl, {
      queryTimeoutMs: config.dbTimeoutMs,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      logger: app.log,
      preparedStatements: config.pgPreparedStatements,
      listenUrl: config.listenUrl,
    }),
    (method) => metrics?.storeCalled(method),
  );
  let engine: Engine | undefined;
  let stopping: Promise<void> | undefined;
  const stopBackground = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        metrics?.close();
        await engine?.stop();
      } finally {
        try {
          await store.close();
        } finally {
          await tracing?.shutdown();
        }
      }
    })());
  // Fastify closes the HTTP server before it runs onClose hooks.
  app.addHook('onClose', stopBackground);

  try {
    await store.migrate();
    engine = await Engine.create({
      ...engineSettingsOf(config),
      store,
      handlers: config.handlers,
      version: NUDGE_VERSION,
      logger: app.log,
      ...(tracing ? { tracing: tracing.engine } : {}),
    });
    metrics = new NudgeMetrics({
      store,
      engine,
      queues: config.queues.map((queue) => queue.name),
      maxQueueLabels: config.metricsMaxQueues,
    });
    await app.register(nudgeRoutes, {
      store,
      engine,
      metrics,
      instanceLiveWithinMs: instanceLiveWithinMs(config.leaseMs),
      tracing: tracing !== undefined,
    });
    await app.register(dashboardPlugin);
    await app.listen({ host: config.host, port: config.port });
    engine.start();
  } catch (error) {
    await app.close().catch(() => undefined);
    await stopBackground().catch(() => undefined);
    throw inSettingTerms(error, nameOf);
  }

  const url = listeningUrl(app);
  const { kinds, slots } = engine;
  const threads = [
    slots.cpu && `${config.threads} cpu threads`,
    slots.async && `${config.asyncThreads} async threads × ${config.asyncConcurrency}`,
  ].filter(Boolean);
  app.log.info(
    { url, dialect: store.dialect, slots, kinds: Object.fromEntries(engine.kindClasses) },
    `listening on ${url} (${store.dialect}, ${threads.join(', ')}, kinds: ${kinds.join(', ')}, queues: ${describeQueues(config.queues)})`,
  );
  if (config.apiKeys.length === 0) {
    app.log.warn(
      { host: config.host },
      config.allowUnauthenticated
        ? `no API keys (NUDGE_API_KEYS is empty) and NUDGE_ALLOW_UNAUTHENTICATED=true: anyone who reaches ${url} may enqueue, cancel and retry jobs`
        : `no API keys (NUDGE_API_KEYS is empty): the API is open, so it listens on ${config.host} only; set NUDGE_API_KEYS to serve other hosts`,
    );
  } else {
    app.log.info(
      { keys: config.apiKeys.length },
      `API keys required on every route but /healthz and /readyz (${config.apiKeys.length} keys)`,
    );
  }
  let closing: Promise<void> | undefined;
  return { app, engine, store, url, close: () => (closing ??= app.close()) };
}

/** `NUDGE_QUEUES` as the start line says it: `every queue`, or `default, emails (cap 4)`. */
function describeQueues(queues: ServerConfig['queues']): string {
  return queues
    .map(({ name, cap }) =>
      name === '*' ? 'every other queue' : cap === undefined ? name : `${name} (cap ${cap})`,
    )
    .join(', ')
    .replace(/^every other queue$/, 'every queue');
}

/** `http://HOST:PORT` of the first address `app` listens on, IPv6 hosts in brackets. */
function listeningUrl(app: NudgeHttpApp): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`unexpected server address ${String(address)}`);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
