import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hasCharacterCountIn } from './character-count.js';
import { validateJobInput, validateJobInputs } from './job-options.js';
import { NudgeError } from './nudge-error.js';
import { isQueueName } from './queue-name.js';

const refuses = (job: unknown, message: RegExp): void =>
  assert.throws(
    () => validateJobInput(job),
    (error: unknown) =>
      error instanceof NudgeError && error.code === 'INVALID_REQUEST' && message.test(error.message),
  );

/** An emoji: one character (code point), two UTF-16 units. */
const EMOJI = '\u{1F600}';

describe('the job contract counts characters and refuses contradictions', () => {
  test('lengths count code points: 101 emoji fit a 200-character limit, 201 do not', () => {
    assert.equal(EMOJI.repeat(101).length, 202, 'more UTF-16 units than the limit');
    validateJobInput({
      kind: EMOJI.repeat(200),
      idempotencyKey: EMOJI.repeat(101),
      concurrencyKey: EMOJI.repeat(200),
    });
    validateJobInput({ kind: 'k', throttle: { key: EMOJI.repeat(200), windowMs: 1 } });
    refuses({ kind: EMOJI.repeat(201) }, /^\/kind must be a string of 1 to 200 characters/);
    refuses({ kind: 'k', idempotencyKey: EMOJI.repeat(201) }, /^\/idempotencyKey must be/);
    refuses({ kind: 'k', debounce: { key: EMOJI.repeat(201), delayMs: 1 } }, /^\/debounce\/key must be/);
    assert.equal(hasCharacterCountIn('', 1, 5), false);
    assert.equal(hasCharacterCountIn(EMOJI.repeat(3), 1, 3), true);
    assert.equal(hasCharacterCountIn(EMOJI.repeat(4), 1, 3), false);
  });

  test('queue names . and .. are refused, names that only hold dots among others are not', () => {
    assert.equal(isQueueName('.'), false);
    assert.equal(isQueueName('..'), false);
    for (const name of ['...', 'a.b', '.hidden', 'v1..2']) assert.equal(isQueueName(name), true, name);
    refuses(
      { kind: 'k', queue: '..' },
      /^\/queue must be a queue name: .*other than '\.' and '\.\.' \(got "\.\."\)/,
    );
  });

  test('onDependencyFailure without dependencies is refused, naming both fields', () => {
    refuses({ kind: 'k', onDependencyFailure: 'run' }, /^\/onDependencyFailure is given without dependsOn/);
    refuses({ kind: 'k', dependsOn: [], onDependencyFailure: 'cancel' }, /^\/onDependencyFailure is given/);
    validateJobInput({ kind: 'k', dependsOn: [1], onDependencyFailure: 'run' });
  });

  test('a dependency listed twice is refused, naming both positions', () => {
    refuses(
      { kind: 'k', dependsOn: [1, 1, 1] },
      /^\/dependsOn\/1 repeats entry 0 \(1\): list each dependency once$/,
    );
    refuses({ kind: 'k', dependsOn: [3, 4, 3] }, /^\/dependsOn\/2 repeats entry 0/);
    assert.throws(
      () => validateJobInputs([{ kind: 'a' }, { kind: 'b', dependsOn: [{ index: 0 }, 7, { index: 0 }] }]),
      /^NudgeError: \/jobs\/1\/dependsOn\/2 repeats entry 0/,
    );
    // An id and an index cannot be compared before the batch is written: both are accepted.
    validateJobInputs([{ kind: 'a' }, { kind: 'b', dependsOn: [{ index: 0 }, 1] }]);
  });
});
