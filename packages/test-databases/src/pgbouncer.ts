import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's `pgbouncer` package puts the binary; `PATH` is searched first. */
const DEBIAN_BINARY = '/usr/sbin/pgbouncer';

/** Options of {@link startPgBouncer}. */
export interface PgBouncerOptions {
  /** The server PgBouncer connects to: `postgres://USER[:PASSWORD]@HOST:PORT/…`. */
  readonly upstreamUrl: string;
  /** `pool_mode`. @defaultValue 'transaction' */
  readonly poolMode?: 'session' | 'transaction' | 'statement';
  /** Server connections per database and user (`default_pool_size`). @defaultValue 2 */
  readonly poolSize?: number;
  /** Longest wait for PgBouncer to accept connections, in ms. @defaultValue 10000 */
  readonly startTimeoutMs?: number;
}

/** A PgBouncer running as a child process. */
export interface RunningPgBouncer {
  readonly port: number;
  /** `upstreamUrl` with its host and port replaced by PgBouncer's, for database `database`. */
  url(database: string): string;
  /** Everything PgBouncer logged so far. */
  log(): string;
  /** Stops PgBouncer (SIGINT: immediate shutdown) and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** The PgBouncer binary, or `undefined` when it is not installed. */
export function findPgBouncer(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim();
  for (const candidate of [onPath, DEBIAN_BINARY]) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** A TCP port free on loopback right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Resolves once `port` accepts a TCP connection; rejects after `timeoutMs`. */
async function waitForPort(port: number, timeoutMs: number, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    const reason = exited();
    if (reason !== undefined) throw new Error(`pgbouncer exited before accepting connections: ${reason}`);
    if (Date.now() > deadline) throw new Error(`pgbouncer accepted no connection within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts PgBouncer in front of `upstreamUrl`'s server, on a free loopback port, from a generated
 * ini: every database name maps to the same name upstream (`* =` fallback), logged in as the URL's
 * user, clients accepted without a password (`auth_type = any`). PgBouncer refuses to run as
 * root, so under root it is started with `-u nobody` and its folder is made readable to all.
 *
 * @throws Error when the binary is missing (install Debian's `pgbouncer`), or it does not accept
 *   connections within `startTimeoutMs`
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<RunningPgBouncer> {
  const binary = findPgBouncer();
  if (!binary) throw new Error('pgbouncer is not installed: apt-get install pgbouncer');
  const upstream = new URL(options.upstreamUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nudge-pgbouncer-'));
  const login = [
    `host=${upstream.hostname || '127.0.0.1'}`,
    `port=${upstream.port || '5432'}`,
    `user=${decodeURIComponent(upstream.username || 'postgres')}`,
    upstream.password ? `password=${decodeURIComponent(upstream.password)}` : '',
  ].join(' ');
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = ${login}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 500',
      'server_login_retry = 1',
      '',
    ].join('\n'),
  );
  chmodSync(dir, 0o755);
  chmodSync(ini, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'nobody'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  let exitReason: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitReason = `code ${code ?? signal}: ${log.trim().split('\n').slice(-3).join(' | ')}`;
      resolve();
    }),
  );
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (exitReason === undefined) child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    })());
  try {
    await waitForPort(port, options.startTimeoutMs ?? 10_000, () => exitReason);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    url: (database) => {
      const url = new URL(options.upstreamUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      url.pathname = `/${database}`;
      return url.toString();
    },
    log: () => log,
    stop,
  };
}
