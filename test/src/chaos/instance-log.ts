import type { Instance } from './cluster.js';

/**
 * Collects the ids of the jobs an instance logs a line about whose message starts with `message`
 * (its stdout is pino's JSON lines; the instance must log at that line's level). The process
 * keeps only the last 64 KiB of its output, so the output is read every 50 ms until
 * {@link stop}, and the ids add up.
 */
export class LoggedJobs {
  /** The ids seen so far. */
  readonly ids = new Set<number>();
  readonly #instance: Instance;
  readonly #message: string;
  readonly #timer: NodeJS.Timeout;

  constructor(instance: Instance, message: string) {
    this.#instance = instance;
    this.#message = message;
    this.#timer = setInterval(() => this.read(), 50).unref();
  }

  /** Reads the output now; @returns {@link ids}. */
  read(): ReadonlySet<number> {
    for (const line of this.#instance.server.output().stdout.split('\n')) {
      if (!line.includes(this.#message)) continue;
      try {
        const entry = JSON.parse(line) as { msg?: unknown; jobId?: unknown };
        if (typeof entry.jobId === 'number' && String(entry.msg).startsWith(this.#message)) {
          this.ids.add(entry.jobId);
        }
      } catch {
        // Not one of pino's lines.
      }
    }
    return this.ids;
  }

  /** Stops reading on a timer. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
