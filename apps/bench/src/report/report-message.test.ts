import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { decodeReport, encodeReport } from './report-message.js';

describe('report datagrams', () => {
  it('round-trip', () => {
    assert.deepEqual(decodeReport(encodeReport({ run: 'a1b2', seq: 19_999 })), { run: 'a1b2', seq: 19_999 });
  });
  it('reject what is not a report', () => {
    assert.equal(decodeReport(Buffer.from('hello')), undefined);
    assert.equal(decodeReport(Buffer.from(':12')), undefined);
    assert.equal(decodeReport(Buffer.from('run:-1')), undefined);
    assert.equal(decodeReport(Buffer.from('run:1.5')), undefined);
  });
});
