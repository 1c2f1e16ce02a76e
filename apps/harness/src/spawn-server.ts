import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The server's entry, `apps/server/dist/main.js` (what `nudge serve` runs), found beside the
 * `@nudge/server` entry this package resolves: the server as users run it, not a copy.
 */
export const SERVER_MAIN = join(dirname(createRequire(import.meta.url).resolve('@nudge/server')), 'main.js');

/** The line the server prints once it listens; the first capture is the URL. */
const LISTENING = /listening on (https?:\/\/[^\s"'),;]+)/;

/** Most characters of each output stream kept for {@link ServerProcess.output}. */
const OUTPUT_TAIL_CHARS = 65_536;

/** Options of {@link spawnServer}. */
export interface SpawnServerOptions {
  /**
   * The server's variables (see `docs/reference/settings.md`), over this process's environment.
   * `PORT` defaults to `0` (a free port) and `HOST` to `127.0.0.1`, so servers can run side by side.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory of the server; relative paths in the variables start here. @defaultValue this process's */
  readonly cwd?: string;
  /** Longest wait for the `listening on` line, in ms. @defaultValue 30000 */
  readonly listenTimeoutMs?: number;
  /** Called with every line the server prints, e.g. to copy it to this process's output. */
  readonly onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /**
   * Start the server in its own process group, so a terminal's Ctrl-C reaches only this process,
   * which decides what to forward. @defaultValue false
   */
  readonly detached?: boolean;
}

/** A server running as a child process, listening. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** Base URL a client on this machine can use, such as `http://127.0.0.1:41234`. */
  readonly url: string;
  /**
   * Resolves with the exit code once the server has exited and its output is read; 128 + the
   * signal's number after a signal.
   */
  readonly exited: Promise<number>;
  /** The last 64 KiB the server printed on each stream so far. */
  output(): { stdout: string; stderr: string };
  /**
   * Sends `signal` (unless the server already exited) and resolves with the exit code: `0` after a
   * clean shutdown on `SIGTERM`/`SIGINT`. Sends `SIGKILL` if the server is still running after
   * `killAfterMs`. Safe to call again, and after the server exited.
   * @param signal - @defaultValue `'SIGTERM'`
   * @param killAfterMs - @defaultValue 60000
   */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number>;
}

/**
 * Starts {@link SERVER_MAIN} (`node apps/server/dist/main.js`) as a child process and resolves once it prints its
 * `listening on <url>` line (printed at every log level). A wildcard host in that URL
 * (`0.0.0.0`, `::`) is replaced by loopback. Output is read continuously, so the child never
 * blocks on a full pipe.
 *
 * @throws Error when the server exits before listening (the message quotes its stderr, such as an
 *   `INVALID_CONFIG` line) or prints no `listening on` line within `listenTimeoutMs`
 */
export function spawnServer(options: SpawnServerOptions = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER_MAIN], {
    cwd: options.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const output = { stdout: '', stderr: '' };
  const keep = (stream: 'stdout' | 'stderr', line: string): void => {
    output[stream] = `${output[stream]}${line}\n`.slice(-OUTPUT_TAIL_CHARS);
    options.onLine?.(line, stream);
  };
  const exited = new Promise<number>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))),
  );
  let exitCode: number | undefined;
  void exited.then((code) => (exitCode = code));

  const stop = (signal: NodeJS.Signals = 'SIGTERM', killAfterMs = 60_000): Promise<number> => {
    if (exitCode !== undefined) return Promise.resolve(exitCode);
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    return exited.finally(() => clearTimeout(timer));
  };

  return new Promise((resolve, reject) => {
    const timeoutMs = options.listenTimeoutMs ?? 30_000;
    let listening = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `the server printed no "listening on" line within ${timeoutMs} ms:\n${output.stdout}${output.stderr}`,
        ),
      );
    }, timeoutMs);
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => keep('stderr', line));
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      keep('stdout', line);
      const match = listening ? null : LISTENING.exec(line);
      if (!match?.[1]) return;
      listening = true;
      clearTimeout(timer);
      resolve({ child, url: clientUrl(match[1]), exited, output: () => ({ ...output }), stop });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start the server: ${error.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      if (!listening)
        reject(new Error(`the server exited with code ${code} before listening: ${output.stderr.trim()}`));
    });
  });
}

/** The URL a client on this machine uses for a printed one: wildcard hosts become loopback. */
function clientUrl(printed: string): string {
  const url = new URL(printed);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}
