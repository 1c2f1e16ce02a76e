import { NudgeError } from '@nudge/core';
import { loadConfig, tracingRequested, type ServerConfig } from './config.js';
import { startConfiguredServer, type RunningServer } from './start-server.js';

/**
 * Prints one line to stderr and exits with code 1: how a start failure is reported. A
 * `NudgeError` shows its code (see docs/reference/errors.md); other errors their message or system code.
 */
function fail(error: unknown): never {
  let text: string;
  if (error instanceof NudgeError) text = `${error.code}: ${error.message}`;
  else if (error instanceof Error)
    text = `cannot start: ${error.message || String((error as NodeJS.ErrnoException).code)}`;
  else text = `cannot start: ${String(error)}`;
  process.stderr.write(`${text.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
}

/** Stops on SIGTERM/SIGINT: graceful on the first, immediate (code 1) on the second. */
function stopOnSignals(server: RunningServer): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      server.app.log.warn({ signal }, `${signal} again: exiting now without waiting for running jobs`);
      process.exit(1);
    }
    stopping = true;
    server.app.log.info({ signal }, `${signal}: shutting down (send it again to exit at once)`);
    server.close().then(
      () => {
        server.app.log.info('shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Levels at which the `info` line announcing the URL is not logged. */
const QUIET_LEVELS: ReadonlySet<ServerConfig['logLevel']> = new Set(['warn', 'error', 'fatal', 'silent']);

/**
 * The service as a process runs it (`node apps/server/dist/main.js`, `nudge serve`): reads the
 * configuration from the environment, starts an OpenTelemetry SDK when `OTEL_*` variables ask
 * for traces (see `tracingRequested`), starts the service, and shuts it down gracefully on
 * SIGTERM or SIGINT (a second signal exits at once). A start failure prints one line to stderr
 * and exits with code 1.
 */
export async function runService(): Promise<void> {
  let config: ServerConfig;
  try {
    config = loadConfig();
  } catch (error) {
    fail(error);
  }
  // The OpenTelemetry SDK is loaded only when OTEL_* variables ask for traces.
  const tracing = tracingRequested()
    ? (await import('./tracing/start-tracing.js')).startTracing()
    : undefined;
  const server = await startConfiguredServer(config, undefined, tracing).catch(fail);
  stopOnSignals(server);
  // Launchers wait for this line; print it even when the log level hides the logged one.
  if (QUIET_LEVELS.has(config.logLevel)) process.stdout.write(`listening on ${server.url}\n`);
}
