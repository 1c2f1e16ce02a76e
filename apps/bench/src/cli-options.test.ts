import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { FULL_SIZES, parseCliOptions, QUICK_SIZES, reportPath, SCENARIO_NAMES } from './cli-options.js';

describe('parseCliOptions', () => {
  it('runs everything at full size by default', () => {
    const options = parseCliOptions([]);
    assert.equal(options.quick, false);
    assert.equal(options.drainJobs, FULL_SIZES.drainJobs);
    assert.deepEqual(options.scenarios, SCENARIO_NAMES);
    assert.equal(options.systems.length, 6);
  });

  it('shrinks sizes with --quick, and a size flag wins in either order', () => {
    assert.equal(parseCliOptions(['--quick']).drainJobs, QUICK_SIZES.drainJobs);
    assert.equal(parseCliOptions(['--drain-jobs', '700', '--quick']).drainJobs, 700);
    assert.equal(parseCliOptions(['--quick', '--drain-jobs=1_000']).drainJobs, 1000);
  });

  it('filters scenarios and systems, keeping the canonical order', () => {
    const options = parseCliOptions(['--only', 'latency,drain', '--systems=bullmq,nudge']);
    assert.deepEqual(options.scenarios, ['drain', 'latency']);
    assert.deepEqual(options.systems, ['nudge', 'bullmq']);
  });

  it('names the flag at fault', () => {
    assert.throws(() => parseCliOptions(['--only', 'drains']), /--only takes names from/);
    assert.throws(() => parseCliOptions(['--cpu-ms', '0']), /--cpu-ms must be a whole number/);
    assert.throws(() => parseCliOptions(['--repeat']), /--repeat needs a value/);
    assert.throws(() => parseCliOptions(['--fast']), /unknown argument "--fast"/);
  });

  it('writes the published results only on a full run, or wherever --out says', () => {
    const doc = '/docs/benchmarks.md';
    assert.equal(reportPath(parseCliOptions([]), doc), doc);
    assert.equal(reportPath(parseCliOptions(['--repeat', '5']), doc), doc);
    assert.equal(reportPath(parseCliOptions(['--quick']), doc), undefined);
    assert.equal(reportPath(parseCliOptions(['--only', 'drain']), doc), undefined);
    assert.equal(reportPath(parseCliOptions(['--systems', 'nudge']), doc), undefined);
    assert.equal(reportPath(parseCliOptions(['--quick', '--out', '/tmp/r.md']), doc), '/tmp/r.md');
  });

  it('settles the idle scenario for a minute and a short while with --quick, and takes --idle-settle-ms', () => {
    assert.equal(parseCliOptions([]).idleSettleMs, 60_000);
    assert.equal(parseCliOptions([]).idleMs, 120_000);
    assert.equal(parseCliOptions(['--quick']).idleSettleMs, 5_000);
    assert.equal(parseCliOptions(['--quick', '--idle-settle-ms', '35000']).idleSettleMs, 35_000);
    assert.equal(parseCliOptions(['--idle-latency-jobs=50']).idleLatencyJobs, 50);
    assert.deepEqual(parseCliOptions(['--only', 'idle-latency']).scenarios, ['idle-latency']);
  });

  it('sizes the steps scenario with --steps-jobs, smaller with --quick', () => {
    assert.equal(parseCliOptions([]).stepsJobs, 2_000);
    assert.equal(parseCliOptions(['--quick']).stepsJobs, 1_000);
    assert.equal(parseCliOptions(['--quick', '--steps-jobs', '300']).stepsJobs, 300);
    assert.deepEqual(parseCliOptions(['--only', 'steps,drain']).scenarios, ['drain', 'steps']);
  });

  it('takes the steady rates as a list, and shortens its window with --quick', () => {
    assert.deepEqual(parseCliOptions([]).steadyRates, [100, 500, 2000]);
    assert.deepEqual(parseCliOptions(['--steady-rates', '50,1_000']).steadyRates, [50, 1000]);
    assert.throws(() => parseCliOptions(['--steady-rates', '50,x']), /--steady-rates takes whole numbers/);
    assert.equal(parseCliOptions([]).steadyWindowMs, 20_000);
    assert.equal(parseCliOptions(['--quick']).steadyWindowMs, 5_000);
    assert.equal(parseCliOptions(['--quick', '--steady-window-ms', '8000']).steadyWindowMs, 8000);
  });

  it('recognises --help', () => {
    assert.equal(parseCliOptions(['--help']).help, true);
  });
});
