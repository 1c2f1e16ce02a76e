import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { formatNumber, formatPercent, formatRatio } from './format-number.js';

describe('formatNumber', () => {
  it('keeps precision proportional to magnitude', () => {
    assert.equal(formatNumber(12_345.6), '12,346');
    assert.equal(formatNumber(45.66), '45.7');
    assert.equal(formatNumber(0.8712), '0.87');
  });
  it('shows a dash for a missing value', () => {
    assert.equal(formatNumber(Number.NaN), '—');
    assert.equal(formatNumber(Number.POSITIVE_INFINITY), '—');
  });
});

describe('formatRatio', () => {
  it('writes a multiplier', () => {
    assert.equal(formatRatio(45, 100), '0.45×');
    assert.equal(formatRatio(310, 100), '3.1×');
    assert.equal(formatRatio(2500, 100), '25×');
  });
  it('shows a dash for a zero divisor or a missing side', () => {
    assert.equal(formatRatio(1, 0), '—');
    assert.equal(formatRatio(Number.NaN, 2), '—');
  });
});

describe('formatPercent', () => {
  it('writes a percentage', () => {
    assert.equal(formatPercent(43, 100), '43 %');
    assert.equal(formatPercent(1, 200), '0.5 %');
    assert.equal(formatPercent(1, 0), '—');
  });
});
