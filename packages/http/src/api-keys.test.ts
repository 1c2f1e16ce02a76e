import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKeyRing, allows, parseApiKeys } from './api-keys.js';

const A = 'a'.repeat(16);
const B = 'b'.repeat(20);

describe('parseApiKeys', () => {
  it('reads key:scope+scope entries separated by commas', () => {
    assert.deepEqual(parseApiKeys(` ${A}:admin , ${B}:enqueue+read,`), [
      { key: A, scopes: ['admin'] },
      { key: B, scopes: ['enqueue', 'read'] },
    ]);
    assert.deepEqual(parseApiKeys(''), []);
  });

  it('refuses a short key, an unknown scope, a missing scope and a duplicate, naming the entry', () => {
    assert.throws(() => parseApiKeys('k1:admin'), /entry 1: the key has 2 characters; use at least 16/);
    assert.throws(() => parseApiKeys(`${A}:admin,${B}:write`), /entry 2: unknown scope "write"/);
    assert.throws(() => parseApiKeys(`${A}:`), /entry 1: unknown scope ""/);
    assert.throws(() => parseApiKeys(A), /entry 1 must be KEY:SCOPE/);
    assert.throws(() => parseApiKeys(`${A}:read,${A}:admin`), /entry 2: the key is listed twice/);
    assert.throws(() => parseApiKeys(`${A} x:read`), /printable ASCII/);
  });
});

describe('scopes', () => {
  it('admin includes the others; the others only themselves', () => {
    assert.ok(allows(['admin'], 'enqueue') && allows(['admin'], 'read') && allows(['admin'], 'admin'));
    assert.ok(allows(['enqueue', 'read'], 'read'));
    assert.ok(!allows(['enqueue', 'read'], 'admin'));
    assert.ok(!allows(['read'], 'enqueue'));
  });
});

describe('ApiKeyRing', () => {
  it('finds a key only when it is equal, whatever its length', () => {
    const ring = new ApiKeyRing(parseApiKeys(`${A}:read,${B}:admin`));
    assert.equal(ring.find(A)?.name, 'key-1');
    assert.equal(ring.find(B)?.name, 'key-2');
    for (const wrong of ['', A.slice(1), `${A}a`, B.toUpperCase(), 'x'.repeat(10_000)]) {
      assert.equal(ring.find(wrong), undefined, wrong.slice(0, 20));
    }
    assert.equal(new ApiKeyRing([]).enabled, false);
  });
});
