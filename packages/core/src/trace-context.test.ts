import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  boundedTracestate,
  MAX_TRACESTATE_LENGTH,
  MAX_TRACESTATE_MEMBERS,
  parseTraceContext,
  storedTraceContext,
  traceContextProblem,
  traceContextText,
} from './trace-context.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const members = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=v${i}`).join(',');

describe('tracestate bounds', () => {
  it('keeps a well-formed tracestate, without empty members or the spaces around them', () => {
    assert.equal(
      boundedTracestate('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE'),
      'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    );
    assert.equal(boundedTracestate(' a=1 ,, \tb@sys=x y '), 'a=1,b@sys=x y');
    assert.equal(boundedTracestate(members(MAX_TRACESTATE_MEMBERS)), members(MAX_TRACESTATE_MEMBERS));
  });

  it('drops one with too many members, too many characters, a malformed member or a key twice', () => {
    assert.equal(boundedTracestate(members(MAX_TRACESTATE_MEMBERS + 1)), undefined);
    assert.equal(boundedTracestate(`a=${'x'.repeat(MAX_TRACESTATE_LENGTH)}`), undefined);
    for (const bad of ['novalue', '=v', 'Upper=1', 'a=1,a=2', 'a=x,y', 'a=bad\u0001', 'a=', ',,', 'a=b=c']) {
      assert.equal(boundedTracestate(bad), undefined, bad);
    }
  });

  it('every write and read path keeps the traceparent and drops a tracestate out of bounds', () => {
    const long = members(MAX_TRACESTATE_MEMBERS + 1);
    const text = JSON.stringify({ traceparent: TRACEPARENT, tracestate: long });
    assert.equal(traceContextProblem(text), undefined, 'accepted, not refused');
    assert.equal(storedTraceContext(text), JSON.stringify({ traceparent: TRACEPARENT }));
    assert.deepEqual(parseTraceContext(text), { traceparent: TRACEPARENT });
    assert.equal(
      traceContextText({ traceparent: TRACEPARENT, tracestate: long }),
      JSON.stringify({ traceparent: TRACEPARENT }),
    );
    assert.equal(storedTraceContext('{"traceparent":"00-bad"}'), undefined);
    assert.match(traceContextProblem('{"traceparent":"00-bad"}') ?? '', /W3C traceparent/);
  });
});
