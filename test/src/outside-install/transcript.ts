import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Lines of a command's output printed at its start and at its end; the middle is elided. */
const HEAD_LINES = 8;
const TAIL_LINES = 6;
/** Longest line printed, in characters. */
const LINE_CHARS = 180;

/** Where and how a command runs. */
export interface CommandOptions {
  readonly cwd: string;
  /** Variables over this process's environment; the ones named here are shown in the transcript. */
  readonly env?: Readonly<Record<string, string>>;
  /** Longest the command may run, in ms. @defaultValue 120000 */
  readonly timeoutMs?: number;
}

/** Children still running, and whether each leads a process group: {@link stopAll} kills them. */
const running = new Map<ChildProcess, boolean>();

/** A log line of the service (pino JSON) as `[level] msg`; any other line as it is, cut short. */
function readable(line: string): string {
  let text = line;
  if (line.startsWith('{')) {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      const level = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }[
        entry.level ?? 30
      ];
      text = `[${level ?? entry.level}] ${entry.msg ?? line}`;
    } catch {
      // not JSON after all: print it as it is
    }
  }
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text;
}

/**
 * npm's complaint about `npm_config_nodedir`, which this environment sets so node-gyp builds
 * better-sqlite3 against the installed headers: noise in every transcript.
 */
const NODEDIR_WARNING = /^npm warn Unknown (env|user) config "nodedir"/;

/** Prints `lines`, indented, eliding the middle of a long output. */
export function printAbridged(output: readonly string[]): void {
  const lines = output.filter((line) => !NODEDIR_WARNING.test(line));
  const shown =
    lines.length <= HEAD_LINES + TAIL_LINES + 1
      ? lines
      : [
          ...lines.slice(0, HEAD_LINES),
          `… ${lines.length - HEAD_LINES - TAIL_LINES} more lines …`,
          ...lines.slice(-TAIL_LINES),
        ];
  for (const line of shown) console.log(`    ${readable(line)}`);
}

/** Prints a command as one would type it, with the variables it sets. */
function printCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): void {
  const vars = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  console.log(`$ ${[...vars, command, ...args].join(' ')}`);
}

function start(
  command: string,
  args: readonly string[],
  options: CommandOptions,
  detached: boolean,
): ChildProcess {
  printCommand(command, args, options.env);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  running.set(child, detached);
  child.once('close', () => running.delete(child));
  return child;
}

/** Collects every output line of `child`, calling `onLine` with each. */
function collect(child: ChildProcess, onLine?: (line: string) => void): string[] {
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      lines.push(line);
      onLine?.(line);
    });
  }
  return lines;
}

/** Exit code of `child` once it closed (128 + the signal's number after a signal). */
function closed(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/**
 * Runs a command to its end, prints it and its output (abridged), and returns the output lines.
 * @throws Error when it exits non-zero or outlives `timeoutMs`; the message ends with its output
 */
export async function run(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<string[]> {
  const started = Date.now();
  const child = start(command, args, options, false);
  const lines = collect(child);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await closed(child).finally(() => clearTimeout(timer));
  printAbridged(lines);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (code !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` exited with ${code} after ${seconds} s${Date.now() - started >= timeoutMs ? ' (timed out)' : ''}:\n${lines.slice(-40).join('\n')}`,
    );
  }
  console.log(`    (exit 0, ${seconds} s)`);
  return lines;
}

/** A long-running command that printed the line it was awaited for. */
export interface Service {
  /** The first capture of the awaited pattern, such as the URL of `listening on <url>`. */
  readonly match: string;
  /** Sends SIGTERM to its process group, waits for it to close, prints its output, returns it. */
  stop(): Promise<string[]>;
}

/**
 * Starts a long-running command in a process group of its own (so `npx` and the process it starts
 * receive signals alike) and resolves once a line matches `ready`.
 * @throws Error when it exits first or prints no such line within `timeoutMs`
 */
export async function startService(
  command: string,
  args: readonly string[],
  ready: RegExp,
  options: CommandOptions,
): Promise<Service> {
  const child = start(command, args, options, true);
  let resolveReady: (match: string) => void = () => undefined;
  const readyLine = new Promise<string>((resolve) => (resolveReady = resolve));
  const lines = collect(child, (line) => {
    const found = ready.exec(line);
    if (found) resolveReady(found[1] ?? found[0]);
  });
  const exit = closed(child);
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const failure = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no line matching ${ready} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    void exit.then((code) => reject(new Error(`exited with ${code} before printing ${ready}`)));
  });
  failure.catch(() => undefined); // it rejects at the latest when the service exits, also after a stop
  try {
    const match = await Promise.race([readyLine, failure]);
    printAbridged(lines);
    console.log('    (running)');
    let stopping: Promise<string[]> | undefined;
    const stop = (): Promise<string[]> =>
      (stopping ??= (async () => {
        const printed = lines.length;
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
        await exit;
        console.log(`$ kill -TERM -${child.pid}   # the process group of \`${command} ${args.join(' ')}\``);
        printAbridged(lines.slice(printed));
        return lines;
      })());
    return { match, stop };
  } catch (error) {
    printAbridged(lines);
    throw new Error(
      `\`${command} ${args.join(' ')}\`: ${(error as Error).message}:\n${lines.slice(-40).join('\n')}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Kills every command still running (and its process group), at once. */
export function stopAll(): void {
  for (const [child, leadsGroup] of running) {
    if (leadsGroup && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  }
}
