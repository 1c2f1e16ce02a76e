import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the scenario asks of the host process. */
export type HostCommand = { readonly type: 'restart'; readonly pauseMs: number } | { readonly type: 'stop' };

/** What the host process answers. */
export type HostReply =
  | { readonly type: 'ready'; readonly url: string }
  | { readonly type: 'restarted'; readonly downMs: number }
  | { readonly type: 'failed'; readonly message: string };

const HOST = fileURLToPath(new URL('./postgres-host.js', import.meta.url));

/** A PostgreSQL server of the scenario's own, which it may restart under running instances. */
export interface RestartablePostgres {
  /** A superuser URL on the server's `postgres` database. */
  readonly url: string;
  /**
   * Fast shutdown (every session ends, open transactions roll back), `pauseMs` with the port
   * closed, then a start on the same port. @returns how long the server was down, in ms
   * @throws Error when the server does not come back
   */
  restart(pauseMs: number): Promise<number>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

/** The next reply of `child`; rejects when it fails or exits first. */
function nextReply(child: ChildProcess): Promise<HostReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: HostReply): void => {
      child.off('exit', onExit);
      if (message.type === 'failed') reject(new Error(message.message));
      else resolve(message);
    };
    const onExit = (code: number | null): void => {
      child.off('message', onMessage);
      reject(new Error(`the PostgreSQL host process exited (${String(code)})`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts a throwaway PostgreSQL server in a host process of its own (see `postgres-host.ts`).
 * @throws Error when the server does not start
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const child = fork(HOST, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await nextReply(child);
  if (ready.type !== 'ready') throw new Error(`unexpected reply from the PostgreSQL host: ${ready.type}`);
  const send = (command: HostCommand): void => void child.send(command);
  return {
    url: ready.url,
    restart: async (pauseMs) => {
      const answer = nextReply(child);
      send({ type: 'restart', pauseMs });
      const restarted = await answer;
      if (restarted.type !== 'restarted') throw new Error(`unexpected reply: ${restarted.type}`);
      return restarted.downMs;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      send({ type: 'stop' });
      await exited;
    },
  };
}
