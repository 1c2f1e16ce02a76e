// `pnpm start`: runs the whole demo. Starts the nudge server in this process with the demo's
// handlers (`startServer` of @nudge/server, as an app embedding nudge would), runs the producer as
// a separate process once the server listens, then keeps serving the API until Ctrl-C or SIGTERM,
// which stops the server gracefully (a second one exits at once). With NUDGE_DEMO_EXIT=1 it
// stops the server after the demo and exits with the producer's code.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer, type LogLevel, type RunningServer } from '@nudge/server';
import { readStartOptions, type StartOptions } from './start-options.js';

const HANDLERS = fileURLToPath(new URL('./handlers.js', import.meta.url));
const PRODUCER = fileURLToPath(new URL('./producer.js', import.meta.url));

const say = (line: string): void => console.log(`[demo] ${line}`);

function runProducer(
  options: StartOptions,
  url: string,
  onSpawn: (child: ChildProcess) => void,
): Promise<number> {
  const child = spawn(process.execPath, [PRODUCER, ...options.producerArgs], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: options.databaseUrl, NUDGE_URL: url },
  });
  onSpawn(child);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(`start: cannot run the producer: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  const options = readStartOptions(process.argv.slice(2), process.env);
  say(`starting the nudge server on ${options.databaseUrl} with handlers ${HANDLERS}`);
  let server: RunningServer;
  try {
    server = await startServer({
      handlers: HANDLERS,
      databaseUrl: options.databaseUrl,
      port: Number(options.port),
      ...(process.env.HOST ? { host: process.env.HOST } : {}),
      // LOG_LEVEL as given: startServer checks it as it checks every option (INVALID_CONFIG).
      logLevel: options.serverLogLevel as LogLevel,
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    console.error(`start: ${typeof code === 'string' ? `${code}: ` : ''}${message}`);
    return 1;
  }

  let producer: ChildProcess | undefined;
  let stopping: Promise<number> | undefined;
  let signalled: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (signalled = resolve));
  const stop = (): Promise<number> =>
    (stopping ??= server.close().then(
      () => 0,
      (error: unknown) => {
        console.error(`start: the server did not shut down cleanly: ${String(error)}`);
        return 1;
      },
    ));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      say(`${signal} again: exiting without waiting for running jobs`);
      process.exit(1);
    }
    say(`${signal}: stopping the server gracefully (repeat to exit at once)`);
    if (producer?.exitCode === null) producer.kill(signal);
    void stop();
    signalled();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  say(`server listening at ${server.url}; running the producer`);
  const producerCode = await runProducer(options, server.url, (started) => (producer = started));
  if (options.exitAfterDemo && !stopping) {
    say(`producer exited with code ${producerCode}; NUDGE_DEMO_EXIT=1, so stopping the server`);
    const code = await stop();
    return producerCode === 0 ? code : producerCode;
  }
  if (!stopping) {
    say(`producer exited with code ${producerCode}; the server keeps serving ${server.url}`);
    say(`try: curl ${server.url}/jobs/1   (Ctrl-C stops the server)`);
  }
  // Serves until a signal starts the graceful stop.
  await stopRequested;
  return stop();
}

process.exitCode = await main();
