// `pnpm start`: runs the whole demo. Starts the nudge server with the demo's handlers, runs the
// producer as a separate process once the server listens, then keeps the server serving its API
// until Ctrl-C or SIGTERM, which is forwarded for a graceful shutdown (a second one kills it).
// With NUDGE_DEMO_EXIT=1 it stops the server after the demo and exits with the producer's code.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchServer, type ExitStatus, type ServerProcess } from './server-process.js';
import { readStartOptions, type StartOptions } from './start-options.js';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
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

async function stopServer(server: ServerProcess): Promise<ExitStatus> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), SHUTDOWN_TIMEOUT_MS);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<number> {
  const options = readStartOptions(process.argv.slice(2), process.env);
  if (!existsSync(SERVER_MAIN)) {
    console.error(`start: the server is not built (${SERVER_MAIN} is missing): run \`npx tsc -b\` first`);
    return 1;
  }
  say(`starting the nudge server on ${options.databaseUrl} with handlers ${HANDLERS}`);
  let server: ServerProcess;
  try {
    server = await launchServer({
      mainPath: SERVER_MAIN,
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        PORT: options.port,
        LOG_LEVEL: options.serverLogLevel,
        NUDGE_HANDLERS: HANDLERS,
      },
      prefix: '[server] ',
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
    const status = await stopServer(server);
    if (status.code !== 0 && status.signal !== 'SIGTERM') {
      console.error(
        `start: the server did not shut down cleanly (${status.signal ?? `code ${status.code}`})`,
      );
      return producerCode === 0 ? 1 : producerCode;
    }
    return producerCode;
  }
  if (!stopping) {
    say(`producer exited with code ${producerCode}; the server keeps serving ${url}`);
    say(`try: curl ${url}/jobs/1   (Ctrl-C stops the server)`);
  }
  const status = await server.exited;
  if (stopping) return status.code ?? 0;
  console.error(`start: the server exited on its own (${status.signal ?? `code ${status.code}`})`);
  return status.code || 1;
}

process.exitCode = await main();
