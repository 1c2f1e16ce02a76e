// Runs every SQL block the README offers operators, on each dialect the block names, against a
// queue with finished, failed and pending jobs: the documented queries must work as printed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Dialect } from '@nudge/store';
import { DIALECTS, createTestDatabase, openStore, rawQuery } from '../helpers/index.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const BLOCKS = [...README.matchAll(/```sql\n(-- ([a-z, ]+)\n[\s\S]*?)```/g)].map((match) => ({
  sql: match[1] ?? '',
  dialects: (match[2] ?? '').split(',').map((d) => d.trim()) as Dialect[],
  title: (match[1] ?? '').split('\n')[1] ?? '',
}));

describe('README operator SQL', () => {
  it('offers queries for both dialects', () => {
    for (const dialect of DIALECTS) {
      assert.ok(
        BLOCKS.filter((b) => b.dialects.includes(dialect)).length >= 3,
        `README has 3+ ${dialect} queries`,
      );
    }
  });

  for (const dialect of DIALECTS) {
    it(`every ${dialect} query runs and reports the jobs`, async () => {
      const db = await createTestDatabase(dialect);
      const store = await openStore(db);
      try {
        await store.enqueueMany([
          { kind: 'report' },
          { kind: 'report' },
          { kind: 'archive', maxAttempts: 1 },
          { kind: 'later' },
        ]);
        const jobs = await store.claim({
          workerId: 'ops',
          leaseMs: 60_000,
          groups: [{ kinds: ['report', 'archive', 'later'], limit: 3 }],
        });
        const byKind = (kind: string) =>
          jobs.filter((j) => j.kind === kind).map((j) => ({ id: j.id, version: j.version }));
        await store.complete(byKind('report').map((lease) => ({ ...lease, resultJson: '{"ok":1}' })));
        await store.fail(
          byKind('archive').map((lease) => ({ ...lease, error: 'disk full', retryDelayMs: 0 })),
        );
        const outputs: string[] = [];
        for (const block of BLOCKS.filter((b) => b.dialects.includes(dialect))) {
          const rows = await rawQuery(db, block.sql);
          outputs.push(JSON.stringify(rows));
        }
        const all = outputs.join('\n');
        assert.match(all, /"SUCCEEDED"/, 'counts by status');
        assert.match(all, /"report"/, 'timings by kind');
        assert.match(all, /disk full/, 'failed jobs with their errors');
      } finally {
        await store.close();
        await db.drop();
      }
    });
  }
});
