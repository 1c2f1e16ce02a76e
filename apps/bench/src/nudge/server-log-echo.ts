/** A nudge server's line at pino level warn (40) or worse. */
const WARNING_OR_WORSE = /"level":(40|50|60)\b/;

/**
 * Echoes a nudge server's warnings, errors and stderr lines to this process's stderr, the first
 * `limit` of them in full and the rest as one count, so a flood of the same warning stays
 * readable while still being reported.
 */
export class ServerLogEcho {
  readonly #prefix: string;
  readonly #limit: number;
  #shown = 0;
  #hidden = 0;

  /** @param limit - lines echoed in full @defaultValue 5 */
  constructor(prefix: string, limit = 5) {
    this.#prefix = prefix;
    this.#limit = limit;
  }

  /** Takes one line of the server's output (`spawnServer`'s `onLine`). */
  readonly onLine = (line: string, stream: 'stdout' | 'stderr'): void => {
    if (stream !== 'stderr' && !WARNING_OR_WORSE.test(line)) return;
    if (this.#shown < this.#limit) {
      this.#shown += 1;
      console.error(`  ${this.#prefix} ${line}`);
    } else {
      this.#hidden += 1;
    }
  };

  /** Prints how many lines were held back, if any. */
  flush(): void {
    if (this.#hidden > 0)
      console.error(`  ${this.#prefix} … and ${this.#hidden} more warning or error lines`);
    this.#hidden = 0;
  }
}
