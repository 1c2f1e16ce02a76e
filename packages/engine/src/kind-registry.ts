import { NudgeError, validateBackoff, type BackoffOptions, type ExecutionClass } from '@nudge/core';
import type { EnqueueInput } from '@nudge/store';
import type { ResolvedEngineOptions } from './engine-options.js';
import { compilePayloadCheck, type PayloadCheck } from './payload-check.js';
import type { KindInfo } from './handlers/handler.js';

/**
 * The kinds of the handler module and what each declared, resolved against the engine's options
 * once: the retry curve, the attempt timeout, the producer defaults and the payload check of
 * each kind.
 */
export class KindRegistry {
  readonly #infos: ReadonlyMap<string, KindInfo>;
  readonly #backoffs = new Map<string, BackoffOptions>();
  readonly #checks = new Map<string, PayloadCheck>();
  readonly #options: ResolvedEngineOptions;

  /** @throws RangeError when a kind's backoff, merged over the engine's, is out of range */
  constructor(kinds: readonly KindInfo[], options: ResolvedEngineOptions) {
    this.#options = options;
    this.#infos = new Map(kinds.map((k) => [k.kind, k]));
    for (const info of kinds) {
      const override = options.backoffByKind[info.kind];
      if (override) this.#backoffs.set(info.kind, override);
      else if (info.backoff) {
        this.#backoffs.set(
          info.kind,
          validateBackoff({ ...options.backoff, ...info.backoff }, `kind "${info.kind}": backoff`),
        );
      }
      // The module's thread compiled the same schema already: this cannot fail unless ajv differs.
      if (info.schema) this.#checks.set(info.kind, compilePayloadCheck(info.schema));
    }
  }

  /** Every kind with what it declared. */
  get all(): readonly KindInfo[] {
    return [...this.#infos.values()];
  }

  /** What `kind` declared, or `undefined` for a kind the module does not export. */
  info(kind: string): KindInfo | undefined {
    return this.#infos.get(kind);
  }

  /** The execution class of `kind`. */
  classOf(kind: string): ExecutionClass | undefined {
    return this.#infos.get(kind)?.execution;
  }

  /**
   * The retry curve of `kind`: the engine's `backoffByKind[kind]` (merged over `backoff`) when
   * given, else the kind's declared `backoff` merged over the engine's, else the engine's.
   */
  backoffFor(kind: string): BackoffOptions {
    return this.#backoffs.get(kind) ?? this.#backoffFor(kind);
  }

  /** The attempt timeout of `kind`, in ms: its declared `timeoutMs`, else `jobTimeoutMs`. */
  timeoutMs(kind: string): number {
    return this.#infos.get(kind)?.timeoutMs ?? this.#options.jobTimeoutMs;
  }

  /**
   * The job as it should be stored: `maxAttempts` and `queue` taken from the kind's declaration
   * when the input gives none, after its payload (`{}` when omitted) passed the kind's schema.
   * A kind the module does not export is returned as given.
   * @throws NudgeError `PAYLOAD_INVALID` naming the JSON Pointer of the first value at fault
   */
  prepare(input: EnqueueInput): EnqueueInput {
    const info = this.#infos.get(input.kind);
    if (!info) return input;
    const problem = this.#checks.get(input.kind)?.(input.payload ?? {});
    if (problem !== undefined) throw new NudgeError('PAYLOAD_INVALID', problem);
    const maxAttempts = input.maxAttempts ?? info.maxAttempts;
    const queue = input.queue ?? info.queue;
    if (maxAttempts === input.maxAttempts && queue === input.queue) return input;
    return { ...input, maxAttempts, queue };
  }

  #backoffFor(kind: string): BackoffOptions {
    // Kinds the module does not export (a job of an older deploy) may still be overridden.
    return this.#options.backoffByKind[kind] ?? this.#options.backoff;
  }
}
