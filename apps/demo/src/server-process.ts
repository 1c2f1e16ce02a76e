import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How a child process ended. */
export interface ExitStatus {
  /** Exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A nudge server running as a child process, listening. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** Base URL a client on this machine can use, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** Resolves when the server has exited. */
  readonly exited: Promise<ExitStatus>;
}

/** Options of {@link launchServer}. */
export interface LaunchServerOptions {
  /** Absolute path of the server's `dist/main.js`. */
  readonly mainPath: string;
  /** The child's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Put before every line the server prints, e.g. `[server] `. */
  readonly prefix: string;
  /** Longest wait for the `listening on` line, in ms. @defaultValue 30000 */
  readonly listenTimeoutMs?: number;
}

const LISTENING = /listening on (https?:\/\/[^\s"'),;]+)/;

/**
 * The base URL to reach a server at from this machine: the URL it printed with a wildcard host
 * (`0.0.0.0`, `::`) replaced by loopback, and no trailing slash.
 */
export function clientUrl(printed: string): string {
  const url = new URL(printed);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/**
 * Starts the server (`node <mainPath>`) in its own process group, so a terminal's Ctrl-C reaches
 * only the parent, which forwards it once. Every line the server prints is copied to this
 * process's stdout or stderr behind `prefix`. Resolves once the server prints `listening on <url>`.
 *
 * @throws Error when the server exits before listening or stays silent for `listenTimeoutMs`
 */
export function launchServer(options: LaunchServerOptions): Promise<ServerProcess> {
  const timeoutMs = options.listenTimeoutMs ?? 30_000;
  const child = spawn(process.execPath, [options.mainPath], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<ExitStatus>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server printed no "listening on" line within ${timeoutMs} ms`));
    }, timeoutMs);
    let listening = false;
    const copy = (stream: NodeJS.ReadableStream, to: NodeJS.WritableStream): void => {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        to.write(`${options.prefix}${line}\n`);
        const match = listening ? null : LISTENING.exec(line);
        if (!match?.[1]) return;
        listening = true;
        clearTimeout(timer);
        resolve({ child, url: clientUrl(match[1]), exited });
      });
    };
    copy(child.stdout, process.stdout);
    copy(child.stderr, process.stderr);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start the server: ${error.message}`));
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!listening) {
        reject(new Error(`the server exited (${signal ?? `code ${String(code)}`}) before listening`));
      }
    });
  });
}
