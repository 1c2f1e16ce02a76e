/**
 * The one path to a claim. The poll timer, `POST /nudge`, an enqueue and a freed slot all call
 * {@link request}; at most one pass runs at a time, and any number of requests during a pass
 * cause exactly one more pass. A pass returns `true` to run again at once (a full batch).
 */
export class ClaimTrigger {
  readonly #pass: () => Promise<boolean>;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(pass: () => Promise<boolean>) {
    this.#pass = pass;
  }

  /** Asks for a claim pass; returns at once. */
  request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      if (await this.#pass()) this.#again = true;
    } while (this.#again);
  }
}
