// Scenario 16, API abuse, on each dialect at the `test` size: abusive requests to a real server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failedGuarantees } from './scenario.js';
import { apiAbuse } from './scenarios/api-abuse.js';

describe(`chaos ${apiAbuse.id}: ${apiAbuse.title}`, () => {
  for (const dialect of apiAbuse.dialects) {
    it(dialect, { timeout: 180_000 }, async () => {
      const result = await apiAbuse.run(dialect, 'test');
      const failed = failedGuarantees(result);
      assert.deepEqual(failed, [], `${failed.join('; ')}\n${JSON.stringify(result, null, 2)}`);
    });
  }
});
