import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  findUnstorableJson,
  findUnstorableJsonText,
  MAX_ERROR_CHARS,
  MAX_JSON_DEPTH,
  toStorableError,
  toStorableText,
} from './storable-json.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('findUnstorableJson', () => {
  it('accepts ordinary JSON, paired surrogates (emoji) and the deepest allowed nesting', () => {
    assert.equal(findUnstorableJson({ a: [1, 'x', null, true, { b: '😀' }], '😀': -0 }), undefined);
    assert.equal(findUnstorableJson(nested(MAX_JSON_DEPTH)), undefined);
  });

  it('refuses one level deeper, and any depth without exhausting the stack', () => {
    assert.equal(findUnstorableJson(nested(MAX_JSON_DEPTH + 1))?.problem, 'too-deep');
    assert.equal(findUnstorableJson(nested(200_000))?.problem, 'too-deep');
  });

  it('names the JSON Pointer of a NUL, a lone surrogate, a bad key or a non-finite number', () => {
    assert.deepEqual(findUnstorableJson({ a: [0, 'x\u0000'] }), {
      problem: 'unstorable',
      path: '/a/1',
      reason: 'a string contains U+0000, which PostgreSQL cannot store',
    });
    assert.match(findUnstorableJson(['\ud800'])?.reason ?? '', /lone UTF-16 surrogate \(\\ud800\)/);
    assert.match(findUnstorableJson('a\udc00')?.reason ?? '', /lone UTF-16 surrogate \(\\udc00\)/);
    assert.equal(findUnstorableJson({ 'a/b~\u0000': 1 })?.path, '/a~1b~0\u0000');
    assert.equal(findUnstorableJson({ n: Infinity })?.reason, 'Infinity is not a finite number');
    assert.equal(findUnstorableJson({ ok: [1], 'x/y': [{}, { '~k': [NaN] }] })?.path, '/x~1y/1/~0k/0');
    assert.equal(findUnstorableJson({ a: { 'b\ud800': 1 } })?.path, '/a/b\ud800');
    assert.equal(findUnstorableJson(nested(MAX_JSON_DEPTH + 1))?.path, '/a/0'.repeat(MAX_JSON_DEPTH / 2));
    assert.equal(findUnstorableJson({ f: () => 1 })?.reason, 'a function is not JSON');
  });
});

describe('findUnstorableJsonText', () => {
  it('agrees with the value check on what JSON.stringify writes', () => {
    for (const value of [{ a: 'x\u0000' }, ['\ud800'], nested(MAX_JSON_DEPTH + 1), { ok: '😀 "\\u0000"' }]) {
      assert.equal(
        findUnstorableJsonText(JSON.stringify(value))?.problem,
        findUnstorableJson(value)?.problem,
        JSON.stringify(value).slice(0, 80),
      );
    }
  });

  it('ignores brackets inside strings', () => {
    assert.equal(findUnstorableJsonText(JSON.stringify({ s: '['.repeat(500) })), undefined);
  });
});

describe('toStorableError', () => {
  it('replaces NUL and lone surrogates, and cuts long messages saying so', () => {
    assert.equal(toStorableText('a\u0000b\ud800c😀'), 'a\ufffdb\ufffdc😀');
    const cut = toStorableError('x'.repeat(MAX_ERROR_CHARS * 2));
    assert.equal(cut.length <= MAX_ERROR_CHARS, true);
    assert.match(cut, /cut from 16384 characters\)$/);
  });
});
