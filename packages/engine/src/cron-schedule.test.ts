import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { dueTicks, resolveSchedules } from './cron-schedule.js';

const one = (schedule: object) => {
  const [resolved] = resolveSchedules([schedule], 'test', new Set(['report', 'echo']));
  if (!resolved) throw new Error('no schedule');
  return resolved;
};

describe('cron schedules', () => {
  it('reads the expression in its time zone, across a daylight-saving change', () => {
    const paris = one({ name: 'morning', cron: '0 9 * * *', timezone: 'Europe/Paris', kind: 'report' });
    // Summer time starts in Paris on 2026-03-29: 09:00 is 08:00 UTC before, 07:00 UTC after.
    assert.equal(paris.nextTick(new Date('2026-03-28T00:00:00Z'))?.toISOString(), '2026-03-28T08:00:00.000Z');
    assert.equal(paris.nextTick(new Date('2026-03-28T08:00:00Z'))?.toISOString(), '2026-03-29T07:00:00.000Z');
    const utc = one({ name: 'utc', cron: '0 9 * * *', kind: 'report' });
    assert.equal(utc.timezone, 'UTC');
    assert.equal(utc.nextTick(new Date('2026-03-28T00:00:00Z'))?.toISOString(), '2026-03-28T09:00:00.000Z');
  });

  it('counts the due ticks after the last one and finds the latest', () => {
    const hourly = one({ name: 'h', cron: '0 * * * *', kind: 'echo' });
    const last = new Date('2026-05-01T10:30:00Z');
    assert.equal(dueTicks(hourly, last, new Date('2026-05-01T10:59:59Z')), undefined);
    assert.deepEqual(dueTicks(hourly, last, new Date('2026-05-01T13:45:00Z')), {
      count: 3,
      latest: new Date('2026-05-01T13:00:00Z'),
    });
    const perSecond = one({ name: 's', cron: '* * * * * *', kind: 'echo' });
    const many = dueTicks(perSecond, new Date('2026-05-01T00:00:00Z'), new Date('2026-05-01T05:00:00Z'));
    assert.equal(many?.latest.toISOString(), '2026-05-01T05:00:00.000Z', 'the latest of 18,000 ticks');
    assert.ok((many?.count ?? 0) >= 10_000);
  });

  it('refuses a bad declaration, naming the schedule and the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /test: schedules must be an array/],
      [[null], /test: schedule 0 must be an object/],
      [[{ cron: '* * * * *', kind: 'echo' }], /schedule 0: name must be 1 to 100/],
      [[{ name: 'a b', cron: '* * * * *', kind: 'echo' }], /schedule 0: name must be/],
      [
        [{ name: 'a', cron: '* * * * *', kind: 'nope' }],
        /schedule "a": kind "nope" is not handled here \(kinds: echo, report\)/,
      ],
      [[{ name: 'a', cron: 'every day', kind: 'echo' }], /schedule "a": cron "every day" in UTC is invalid/],
      [[{ name: 'a', cron: '0 3 * * *', timezone: 'Mars/Base', kind: 'echo' }], /in Mars\/Base is invalid/],
      [[{ name: 'a', cron: '0 3 * * *', kind: 'echo', missed: 'all' }], /missed must be "latest" or "skip"/],
      [
        [
          { name: 'a', cron: '0 3 * * *', kind: 'echo' },
          { name: 'a', cron: '0 4 * * *', kind: 'echo' },
        ],
        /schedule "a" is declared twice/,
      ],
    ];
    for (const [declared, message] of cases) {
      assert.throws(
        () => resolveSchedules(declared, 'test', new Set(['report', 'echo'])),
        (error: Error) => error instanceof RangeError && message.test(error.message),
        JSON.stringify(declared),
      );
    }
  });

  it("refuses a schedule's job fields with the job contract's code and message", () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ kind: '' }, 'INVALID_REQUEST', '/kind must be a string of 1 to 200 characters (got "")'],
      [
        { queue: 'no spaces' },
        'INVALID_REQUEST',
        `/queue must be a queue name: 1 to 100 letters, digits, '_', '.' or '-', other than '.' and '..' (got "no spaces")`,
      ],
      [{ priority: 5000 }, 'INVALID_REQUEST', '/priority must be an integer from -1000 to 1000 (got 5000)'],
      [{ maxAttempts: 0 }, 'INVALID_REQUEST', '/maxAttempts must be an integer from 1 to 1000 (got 0)'],
      [{ payload: { n: Number.NaN } }, 'PAYLOAD_UNSTORABLE', '/payload/n: NaN is not a finite number'],
    ];
    for (const [fields, code, message] of cases) {
      const declared = [{ name: 'a', cron: '0 3 * * *', kind: 'echo', ...fields }];
      assert.throws(
        () => resolveSchedules(declared, 'test', new Set(['report', 'echo'])),
        (error: unknown) =>
          error instanceof NudgeError &&
          error.code === code &&
          error.message === `test: schedule "a": ${message}`,
        JSON.stringify(fields),
      );
    }
  });
});
