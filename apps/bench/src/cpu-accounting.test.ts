import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseMachineBusyTicks, parseProcessStatTicks, ticksToMs } from './cpu-accounting.js';
import { cpuMsBetween } from './process-cpu.js';

describe('parseProcessStatTicks', () => {
  it('adds utime and stime', () => {
    const stat =
      '28703 (node) R 28649 28649 19917 0 -1 4194304 98 0 0 0 120 35 0 0 20 0 11 0 197572 3133440 411 18446744073709551615';
    assert.equal(parseProcessStatTicks(stat), 155);
  });
  it('reads past a command name with spaces and parentheses', () => {
    const stat = '7 (a) b (c)) S 1 7 7 0 -1 4194560 0 0 0 0 4 6 0 0 20 0 1 0 1 0 0';
    assert.equal(parseProcessStatTicks(stat), 10);
  });
});

describe('parseMachineBusyTicks', () => {
  it('sums the first line but idle and iowait', () => {
    const procStat = 'cpu  217511 3762 96379 69638 3722 0 2284 10 0 0\ncpu0 1 1 1 1 1 0 0 0 0 0\n';
    assert.equal(parseMachineBusyTicks(procStat), 217511 + 3762 + 96379 + 2284 + 10);
  });
});

describe('ticksToMs', () => {
  it('counts 100 ticks a second', () => {
    assert.equal(ticksToMs(155), 1550);
  });
});

describe('cpuMsBetween', () => {
  it('counts a process born in between from zero and leaves out one that ended', () => {
    const before = new Map([
      [1, 100],
      [2, 50],
    ]);
    const after = new Map([
      [1, 130],
      [3, 20],
    ]);
    assert.equal(cpuMsBetween(before, after), 50);
  });
});
