import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobStatusCounts } from '@nudge/http';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`JobStatusCounts: ${dialect}`, () => {
    it('reuses a count for maxAgeMs, shares one in flight, and counts again once it is older', async () => {
      const t = await createTestApp(dialect);
      try {
        await t.store.enqueue({ kind: 'echo' });
        const counts = new JobStatusCounts(t.store, 60_000);
        const [a, b] = await Promise.all([counts.get(), counts.get()]);
        assert.equal(a.PENDING, 1);
        assert.equal(b, a);
        await t.store.enqueue({ kind: 'echo' });
        assert.equal((await counts.get()).PENDING, 1, 'reused');
        assert.equal(counts.queries, 1);
        const fresh = new JobStatusCounts(t.store, 0);
        assert.equal((await fresh.get()).PENDING, 2);
        assert.equal((await fresh.get()).PENDING, 2);
        assert.equal(fresh.queries, 2);
        assert.throws(() => new JobStatusCounts(t.store, -1), RangeError);
      } finally {
        await t.close();
      }
    });
  });
}
