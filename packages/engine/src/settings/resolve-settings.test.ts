import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { MAX_TIMER_MS } from '@nudge/core';
import type { Store } from '@nudge/store';
import { resolveEngineOptions } from '../engine-options.js';
import { EVERY_QUEUE } from '../queue-serving.js';
import { DEFAULT_RETENTION } from '../retention-policy.js';
import { ENGINE_SETTINGS } from './engine-settings.js';
import { acceptedForm, defaultOf, resolveSettings } from './resolve-settings.js';

const store = {} as Store;

describe('engine settings', () => {
  it('fill each default from the table', () => {
    const options = resolveEngineOptions({ store, handlers: 'h.mjs' });
    for (const [name, setting] of Object.entries(ENGINE_SETTINGS)) {
      assert.deepEqual(options[name as keyof typeof options], defaultOf(setting), name);
    }
    assert.equal(options.threads, Math.min(1024, availableParallelism()));
    assert.equal(options.leaseMs, 30_000);
    assert.equal(options.queues, EVERY_QUEUE);
    assert.equal(options.retention, DEFAULT_RETENTION);
  });

  it('refuse an option out of its range, naming the field and the range of the table', () => {
    for (const [options, message] of [
      [{ leaseMs: 299 }, 'leaseMs must be a whole number of ms from 300 to 2147483647 (got 299)'],
      [{ leaseMs: MAX_TIMER_MS + 1 }, /^leaseMs must be .* to 2147483647 \(got 2147483648\)$/],
      [{ threads: 0 }, 'threads must be a whole number from 1 to 1024 (got 0)'],
      [{ cpuThreadNice: 2.5 }, 'cpuThreadNice must be a whole number from 0 to 19 (got 2.5)'],
      [{ progressIntervalMs: 5 }, /^progressIntervalMs must be a whole number of ms from 10 /],
      [{ listen: 'yes' as unknown as boolean }, 'listen must be true or false (got "yes")'],
    ] as const) {
      assert.throws(
        () => resolveEngineOptions({ store, handlers: 'h.mjs', ...options }),
        (error: unknown) => {
          assert.ok(error instanceof RangeError);
          if (typeof message === 'string') assert.equal(error.message, message);
          else assert.match(error.message, message);
          return true;
        },
      );
    }
  });

  it('keep every duration a timer waits for within what setTimeout honours', () => {
    for (const [name, setting] of Object.entries(ENGINE_SETTINGS)) {
      if (setting.type === 'wholeNumber' && 'unit' in setting && setting.unit === 'ms') {
        assert.ok(setting.max <= MAX_TIMER_MS, name);
      }
    }
  });

  it('state each whole number form with its unit', () => {
    assert.equal(
      acceptedForm(ENGINE_SETTINGS.maxOldGenerationSizeMb),
      'a whole number of MB from 16 to 1048576',
    );
    assert.deepEqual(resolveSettings({ a: ENGINE_SETTINGS.asyncThreads }, { a: 3 }), { a: 3 });
  });
});
