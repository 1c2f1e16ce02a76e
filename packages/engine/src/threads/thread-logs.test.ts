import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadLogs } from './thread-logs.js';
import type { LogBatch } from './thread-messages.js';

describe('ThreadLogs', () => {
  it("hands an attempt's unsent lines over when it settles, and ignores its later calls", () => {
    const sent: LogBatch[][] = [];
    const logs = new ThreadLogs({ intervalMs: 60_000, linesPerAttempt: 100, send: (b) => sent.push([...b]) });
    const log = logs.logOf(7, 3, 2);
    log.info('one', { a: 1 });
    log.error('two');
    assert.deepEqual(logs.take(7, 3), [
      7,
      3,
      2,
      [
        ['info', 'one', '{"a":1}'],
        ['error', 'two', null],
      ],
      0,
    ]);
    log.warn('late');
    assert.equal(logs.take(7, 3), undefined);
    assert.deepEqual(sent, [], 'nothing went on the timer');
  });

  it('keeps a line whose message cannot be made text, and does not throw into the handler', () => {
    const logs = new ThreadLogs({ intervalMs: 60_000, linesPerAttempt: 100, send: () => undefined });
    const log = logs.logOf(1, 1, 1);
    const throwing = {
      toString() {
        throw new Error('no text');
      },
    };
    // A handler in JavaScript may pass anything as the message.
    const untyped = log as unknown as Record<'info' | 'warn' | 'error', (message: unknown) => void>;
    untyped.info(throwing);
    untyped.warn(Object.create(null));
    untyped.error(42);
    assert.deepEqual(logs.take(1, 1)?.[3], [
      ['info', '[a message that cannot be made text]', null],
      ['warn', '[a message that cannot be made text]', null],
      ['error', '42', null],
    ]);
  });

  it('sends at most linesPerAttempt lines of an attempt and counts the rest', () => {
    const logs = new ThreadLogs({ intervalMs: 60_000, linesPerAttempt: 3, send: () => undefined });
    const log = logs.logOf(1, 1, 1);
    for (let i = 0; i < 10; i += 1) log.debug(`line ${i}`);
    const batch = logs.take(1, 1);
    assert.equal(batch?.[3].length, 3);
    assert.equal(batch?.[4], 7);
  });

  it('sends the lines of every attempt in one message per interval', async () => {
    const sent: LogBatch[][] = [];
    const logs = new ThreadLogs({ intervalMs: 20, linesPerAttempt: 100, send: (b) => sent.push([...b]) });
    logs.logOf(1, 1, 1).info('a');
    logs.logOf(2, 1, 1).info('b');
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(sent.length, 1);
    assert.deepEqual(
      sent[0]?.map((b) => [b[0], b[3].length]),
      [
        [1, 1],
        [2, 1],
      ],
    );
    assert.equal(logs.take(1, 1), undefined, 'nothing left to hand over');
  });
});
