import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fitJobLogLine, jobLogFieldsJson, jobLogLineBytes, MAX_JOB_LOG_LINE_BYTES } from './job-log-line.js';

describe('fitJobLogLine', () => {
  it('keeps a line within the limit as it is', () => {
    assert.deepEqual(fitJobLogLine('info', 'hello', '{"a":1}'), {
      level: 'info',
      message: 'hello',
      fieldsJson: '{"a":1}',
    });
  });

  it('cuts a line over the limit: fields left out, message cut with a note of its size', () => {
    const message = 'é'.repeat(MAX_JOB_LOG_LINE_BYTES);
    const line = fitJobLogLine('warn', message, '{"k":"v"}');
    assert.equal(line.fieldsJson, null);
    assert.ok(jobLogLineBytes(line) <= MAX_JOB_LOG_LINE_BYTES, `${jobLogLineBytes(line)} bytes`);
    assert.match(line.message, / … \[cut: the line had 16393 bytes\]$/);
    assert.ok(!line.message.includes('\ufffd'), 'no character cut in half');
  });

  it('replaces U+0000 in a message', () => {
    assert.equal(fitJobLogLine('error', 'a\u0000b', null).message, 'a\ufffdb');
  });
});

describe('jobLogFieldsJson', () => {
  it('gives null without fields and JSON of an object', () => {
    assert.equal(jobLogFieldsJson(undefined), null);
    assert.equal(jobLogFieldsJson({ a: [1, 'x'] }), '{"a":[1,"x"]}');
  });

  it('notes fields it cannot store instead of failing the handler', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    assert.match(jobLogFieldsJson(cycle) ?? '', /^\{"unstorable":"fields are not JSON/);
    assert.equal(jobLogFieldsJson([1]), '{"unstorable":"fields must be a plain object"}');
    assert.match(jobLogFieldsJson({ a: 'x\u0000' }) ?? '', /U\+0000/);
  });
});
