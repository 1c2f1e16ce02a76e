// `pnpm start`: runs the whole demo. Starts the nudge server with the demo's handlers, runs the
// producer as a separate process once the server listens, then keeps the server serving its API
// until Ctrl-C or SIGTERM, which is forwarded for a graceful shutdown (a second one kills it).
// With NUDGE_DEMO_EXIT=1 it stops the server after the demo and exits with the producer's code.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '@nudge/server';
import { readStartOptions, type StartOptions } from './start-options.js';

const HANDLERS = fileURLToPath(new URL('./handlers.js', import.meta.url));
const PRODUCER = fileURLToPath(new URL('./producer.js', import.meta.url));
/** Longest wait for the server's graceful shutdown before it is killed, in ms. */
const SHUTDOWN_TIMEOUT_MS = 20_000;

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
  let server: ServerProcess;
  try {
    server = await spawnServer({
      env: {
        DATABASE_URL: options.databaseUrl,
        ...(process.env.HOST ? { HOST: process.env.HOST } : {}),
        PORT: options.port,
        LOG_LEVEL: options.serverLogLevel,
        NUDGE_HANDLERS: HANDLERS,
      },
      onLine: (line, stream) =>
        (stream === 'stdout' ? process.stdout : process.stderr).write(`[server] ${line}\n`),
      detached: true,
    });
  } catch (error) {
    console.error(`start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const { child, url } = server;
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  let producer: ChildProcess | undefined;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      say(`${signal} again: killing the server`);
      child.kill('SIGKILL');
      return;
    }
    stopping = true;
    say(`${signal}: stopping the server gracefully (repeat to kill it)`);
    if (producer?.exitCode === null) producer.kill(signal);
    child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  say(`server listening at ${url}; running the producer`);
  const producerCode = await runProducer(options, url, (started) => (producer = started));
  if (options.exitAfterDemo && !stopping) {
    say(`producer exited with code ${producerCode}; NUDGE_DEMO_EXIT=1, so stopping the server`);
    const code = await server.stop('SIGTERM', SHUTDOWN_TIMEOUT_MS);
    if (code !== 0) {
      console.error(`start: the server did not shut down cleanly (exit code ${code})`);
      return producerCode === 0 ? 1 : producerCode;
    }
    return producerCode;
  }
  if (!stopping) {
    say(`producer exited with code ${producerCode}; the server keeps serving ${url}`);
    say(`try: curl ${url}/jobs/1   (Ctrl-C stops the server)`);
  }
  const code = await server.exited;
  if (stopping) return code;
  console.error(`start: the server exited on its own (exit code ${code})`);
  return code || 1;
}

process.exitCode = await main();
