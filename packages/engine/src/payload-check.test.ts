import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePayloadCheck } from './payload-check.js';

describe('payload check', () => {
  const check = compilePayloadCheck({
    type: 'object',
    properties: {
      'a/b~c': { type: 'integer', minimum: 1 },
      list: {
        type: 'array',
        items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
      },
    },
    required: ['a/b~c'],
    additionalProperties: false,
  });

  it('passes a matching payload', () => {
    assert.equal(check({ 'a/b~c': 1, list: [{ at: '2030-01-01T00:00:00Z' }] }), undefined);
  });

  it('names the first value at fault by its JSON Pointer, escaped as RFC 6901 says', () => {
    assert.equal(check({}), '/payload/a~1b~0c is required');
    assert.equal(check({ 'a/b~c': 0 }), '/payload/a~1b~0c must be >= 1 (got 0)');
    assert.equal(check({ 'a/b~c': 1, x: 1 }), '/payload/x is not allowed');
    assert.equal(
      check({ 'a/b~c': 1, list: [{ at: '2030-01-01T00:00:00Z' }, { at: 'soon' }] }),
      '/payload/list/1/at must match format "date-time" (got "soon")',
    );
    assert.equal(check('x'.repeat(100)), `/payload must be object (got "${'x'.repeat(56)}...)`);
  });

  it('refuses a schema it cannot compile', () => {
    assert.throws(() => compilePayloadCheck({ type: 'text' }), /type/);
  });
});
