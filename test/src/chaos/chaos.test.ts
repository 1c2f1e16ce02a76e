// The short versions of the fault-injection scenarios: each one on each dialect it applies to,
// at the `test` size. `pnpm test:chaos` runs them bigger and prints the table.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failedGuarantees } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';

for (const scenario of SCENARIOS) {
  describe(`chaos ${scenario.id}: ${scenario.title}`, () => {
    for (const dialect of scenario.dialects) {
      it(dialect, { timeout: 180_000 }, async () => {
        const result = await scenario.run(dialect, 'test');
        assert.deepEqual(failedGuarantees(result), [], JSON.stringify(result));
      });
    }
  });
}
