import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isIsoDateTime } from './iso-date-time.js';

describe('isIsoDateTime', () => {
  it('accepts RFC 3339 date-times with a zone', () => {
    for (const value of [
      '2030-01-01T09:00:00Z',
      '2030-01-01t09:00:00z',
      '2030-01-01T09:00:00.1Z',
      '2030-01-01T09:00:00.123456789Z',
      '2030-01-01T10:00:00+01:00',
      '2030-01-01T04:30:00-04:30',
      '2028-02-29T00:00:00Z',
      '1970-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      assert.equal(isIsoDateTime(value), true, value);
    }
  });

  it('refuses other strings', () => {
    for (const value of [
      '',
      'tomorrow',
      '2030-01-01',
      '2030-01-01T09:00:00',
      '2030-01-01 09:00:00Z',
      '2030-13-01T09:00:00Z',
      '2030-02-29T09:00:00Z',
      '2030-04-31T09:00:00Z',
      '2030-01-01T24:00:00Z',
      '2030-01-01T09:60:00Z',
      '2030-01-01T09:00:60Z',
      '2030-01-01T09:00:00+24:00',
      '2030-01-01T09:00:00+0100',
      '1969-12-31T23:59:59Z',
      '1970-01-01T00:30:00+01:00',
      '+010000-01-01T00:00:00Z',
    ]) {
      assert.equal(isIsoDateTime(value), false, value);
    }
  });
});
