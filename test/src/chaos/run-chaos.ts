// `pnpm test:chaos [--size test|ci|full] [--only 1,4] [--dialect sqlite|postgres]`: runs the
// fault-injection scenarios and prints one table; exits 1 when any guarantee failed.
import { parseArgs } from 'node:util';
import { resultsTable } from './results-table.js';
import { failedGuarantees, type ChaosSize, type ScenarioResult } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';

const SIZES: readonly ChaosSize[] = ['test', 'ci', 'full'];
const USAGE = 'usage: pnpm test:chaos [--size test|ci|full] [--only 1,4] [--dialect sqlite|postgres]';

function fail(reason: string): never {
  console.error(`${reason}\n${USAGE}`);
  process.exit(2);
}

let values: { size?: string; only?: string; dialect?: string; help?: boolean };
try {
  values = parseArgs({
    options: {
      size: { type: 'string', default: 'full' },
      only: { type: 'string' },
      dialect: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const size = values.size as ChaosSize;
if (!SIZES.includes(size)) fail(`--size must be one of ${SIZES.join(', ')} (got ${values.size})`);
if (values.dialect && values.dialect !== 'sqlite' && values.dialect !== 'postgres') {
  fail(`--dialect must be sqlite or postgres (got ${values.dialect})`);
}
const known = new Set(SCENARIOS.map((scenario) => scenario.id));
const only = values.only?.split(',').map(Number);
const unknown = only?.filter((id) => !known.has(id));
if (unknown && unknown.length > 0) {
  fail(`--only takes scenario numbers ${[...known].join(',')} (got ${values.only})`);
}
const results: ScenarioResult[] = [];
let failures = 0;
for (const scenario of SCENARIOS) {
  if (only && !only.includes(scenario.id)) continue;
  for (const dialect of scenario.dialects) {
    if (values.dialect && values.dialect !== dialect) continue;
    const started = performance.now();
    process.stderr.write(`scenario ${scenario.id} (${scenario.title}) on ${dialect}: `);
    try {
      const result = await scenario.run(dialect, size);
      results.push(result);
      const failed = failedGuarantees(result);
      failures += failed.length > 0 ? 1 : 0;
      process.stderr.write(
        `${failed.length === 0 ? 'ok' : `FAILED: ${failed.join('; ')}`} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
      );
      if (result.notes) process.stderr.write(`  ${JSON.stringify(result.notes)}\n`);
    } catch (error) {
      failures += 1;
      process.stderr.write(`could not run: ${String(error)}\n`);
    }
  }
}
console.log(resultsTable(results));
process.exitCode = failures > 0 ? 1 : 0;
