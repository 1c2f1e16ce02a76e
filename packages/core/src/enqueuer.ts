/**
 * Who enqueues through the HTTP API, when API keys are configured: the key's stable id, written to
 * the `enqueued_by` column of every job the call creates, and whether the key may replace a
 * debounced job another key enqueued. A call without one (the SDK, the engine, `ctx.enqueue`, a
 * cron tick, an API without keys) records nothing and may replace any debounced job.
 */
export interface Enqueuer {
  /**
   * The API key's id: its fingerprint (`ApiKeyRing` in `@nudge/http`), never the secret; the same
   * whatever the key's position in the configured list.
   */
  readonly keyId: string;
  /**
   * Whether the key may replace a debounced job that another key (or no key) enqueued: `true` for
   * an `admin` key. Otherwise such an enqueue answers `DEBOUNCE_OWNED_BY_OTHER_KEY`.
   */
  readonly replacesOthers: boolean;
}
