import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETENTION, describeRetention, parseRetention, retentionAgeMs } from './retention-policy.js';

const DAY_MS = 86_400_000;

describe('parseRetention', () => {
  it('is the default for an empty text: SUCCEEDED 1 day, FAILED and CANCELLED 14 days', () => {
    assert.deepEqual(parseRetention(''), DEFAULT_RETENTION);
    assert.deepEqual(DEFAULT_RETENTION.byStatus, {
      SUCCEEDED: DAY_MS,
      FAILED: 14 * DAY_MS,
      CANCELLED: 14 * DAY_MS,
    });
  });

  it('overrides the statuses it names and keeps the others, per kind where a kind is given', () => {
    const policy = parseRetention(
      ' SUCCEEDED=90s , report:SUCCEEDED=30d,report:FAILED=keep,CANCELLED=0,x:y:FAILED=12h',
    );
    assert.deepEqual(policy.byStatus, { SUCCEEDED: 90_000, FAILED: 14 * DAY_MS, CANCELLED: 0 });
    assert.equal(retentionAgeMs(policy, 'SUCCEEDED', 'report'), 30 * DAY_MS);
    assert.equal(retentionAgeMs(policy, 'FAILED', 'report'), null);
    assert.equal(retentionAgeMs(policy, 'CANCELLED', 'report'), 0, 'a kind falls back to its status');
    assert.equal(retentionAgeMs(policy, 'SUCCEEDED', 'other'), 90_000);
    assert.equal(
      retentionAgeMs(policy, 'FAILED', 'x:y'),
      12 * 3_600_000,
      'the status follows the last colon',
    );
  });

  it('describes a policy in the form it parses', () => {
    const text = 'SUCCEEDED=2h,FAILED=keep,CANCELLED=7d,report:SUCCEEDED=30d';
    assert.equal(describeRetention(parseRetention(text)), text);
    assert.deepEqual(parseRetention(describeRetention(parseRetention(text))), parseRetention(text));
  });

  it('refuses a bad entry, naming it and what to write instead', () => {
    const cases: Array<[string, RegExp]> = [
      ['SUCCEEDED', /"SUCCEEDED" must be STATUS=AGE or KIND:STATUS=AGE/],
      ['DONE=1d', /names status "DONE"; use SUCCEEDED, FAILED, CANCELLED/],
      ['RUNNING=1d', /names status "RUNNING"/],
      [':FAILED=1d', /has an empty kind/],
      ['FAILED=forever', /the age in "FAILED=forever" must be a duration such as 90s, 15m, 12h, 7d, or keep/],
      ['FAILED=10', /must be a duration/],
      ['FAILED=-1d', /must be a duration/],
      ['FAILED=', /must be a duration/],
      ['FAILED=11y', /over 10 years; use keep/],
      ['FAILED=1d,FAILED=2d', /"FAILED" is given twice/],
      ['a:FAILED=1d,a:FAILED=keep', /"a:FAILED" is given twice/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseRetention(text),
        (error: Error) => error instanceof RangeError && message.test(error.message),
        text,
      );
    }
  });
});
