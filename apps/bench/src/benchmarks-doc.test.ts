import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { renderBenchmarksDoc, type BenchReport } from './benchmarks-doc.js';
import { SCENARIO_NAMES } from './cli-options.js';
import { SCENARIOS } from './scenarios/scenario-list.js';

const report: BenchReport = {
  quick: true,
  command: 'pnpm bench --quick',
  startedAt: new Date('2025-01-01T00:00:00Z'),
  durationMs: 120_000,
  machine: {
    cpuModel: 'Test CPU',
    cores: 2,
    memoryGiB: 24,
    os: 'Linux 6',
    node: 'v20.20.2',
    postgres: '15.20',
    redis: undefined,
    loadAverage: [0.5, 0.25, 0],
  },
  systems: [{ label: 'pg-boss', version: 'pg-boss 10.4.2', configuration: 'batchSize 500' }],
  skipped: ['BullMQ: Redis unreachable'],
  scenarios: [{ name: 'drain', summary: 'drains' }],
  burn: undefined,
  table: '| a |\n| --- |\n| 1 |',
  endLoadAverage: [1, 1, 1],
  strayReports: 0,
};

describe('renderBenchmarksDoc', () => {
  it('labels a quick run and keeps the command, machine, configurations and table', () => {
    const text = renderBenchmarksDoc(report);
    assert.match(text, /^# Benchmarks \(quick run\)\n/);
    assert.match(text, /Command: `pnpm bench --quick`/);
    assert.match(text, /Redis unreachable \(BullMQ skipped\)/);
    assert.match(text, /at start 0\.50 \/ 0\.25 \/ 0\.00, at end 1\.00 \/ 1\.00 \/ 1\.00/);
    assert.match(text, /\*\*pg-boss\*\* \(pg-boss 10\.4\.2\): batchSize 500/);
    assert.match(text, /- Skipped: BullMQ: Redis unreachable/);
    assert.ok(text.includes(report.table));
  });

  it('does not call a full run quick', () => {
    assert.match(renderBenchmarksDoc({ ...report, quick: false }), /^# Benchmarks\n/);
  });

  it('lists every scenario with its one-line summary, idle-latency and idle included', () => {
    const scenarios = SCENARIO_NAMES.map((name) => ({ name, summary: SCENARIOS[name].summary }));
    const text = renderBenchmarksDoc({ ...report, scenarios });
    for (const { name, summary } of scenarios) {
      assert.ok(!summary.includes('\n'), `${name}'s summary is one line`);
      assert.ok(text.includes(`- **${name}**: ${summary}\n`), name);
    }
    assert.match(text, /- \*\*idle-latency\*\*: one job at a time .*20–520 ms.* p50 and p99/);
  });
});
