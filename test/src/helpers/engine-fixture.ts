import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type EngineOptions } from '@nudge/engine';
import type { Store } from '@nudge/store';

/** `file:` URL of the test handler module. */
export const FIXTURE_HANDLERS = new URL('../fixtures/handlers.js', import.meta.url).href;

/** `file:` URL of a handler module with only `noop`, `tally` and `asyncTally`. */
export const PARTIAL_HANDLERS = new URL('../fixtures/handlers-partial.js', import.meta.url).href;

/** `file:` URL of the handler module of the durable-steps tests (`flow`, `asyncFlow`, …). */
export const DURABLE_HANDLERS = new URL('../fixtures/handlers-durable.js', import.meta.url).href;

/** Creates an engine on the fixture handlers with fast timers; the caller starts and stops it. */
export function createEngine(store: Store, options: Partial<EngineOptions> = {}): Promise<Engine> {
  return Engine.create({
    store,
    handlers: FIXTURE_HANDLERS,
    threads: 2,
    pollIntervalMs: 100,
    sweepIntervalMs: 200,
    leaseMs: 5000,
    shutdownGraceMs: 1000,
    abortGraceMs: 100,
    backoff: { baseMs: 100, maxMs: 1000, jitterRatio: 0 },
    ...options,
  });
}

/** A scratch folder with a release switch for `hold` jobs. */
export interface Scratch {
  readonly dir: string;
  /** File whose existence releases every `hold` job of this scratch. */
  readonly releaseFile: string;
  release(): void;
  remove(): void;
}

/** Makes a scratch folder. */
export function createScratch(): Scratch {
  const dir = mkdtempSync(join(tmpdir(), 'nudge-scratch-'));
  const releaseFile = join(dir, 'release');
  return {
    dir,
    releaseFile,
    release: () => writeFileSync(releaseFile, ''),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
