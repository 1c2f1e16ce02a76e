// A producer process for the PgBouncer test. Usage:
//   node pooled-producer.js sql|http COUNT DATABASE_URL SERVER_URL[,SERVER_URL…]
// `sql` enqueues through @nudge/client inside its own `pg` transactions on a pool that goes
// through the pooler (10 jobs a transaction), then POSTs /nudge; `http` sends one POST /jobs per
// job, alternating between the servers. Prints one JSON line: the ids written and every HTTP
// status seen (5xx included) or error met.
import pg from 'pg';
import { createClient, enqueueMany, nudge, NudgeApiError } from '@nudge/client';

const [mode, countText, databaseUrl, serverList] = process.argv.slice(2);
if ((mode !== 'sql' && mode !== 'http') || !countText || !databaseUrl || !serverList) {
  throw new Error('usage: pooled-producer sql|http COUNT DATABASE_URL SERVER_URL[,SERVER_URL…]');
}
const count = Number(countText);
const servers = serverList.split(',');
const ids: number[] = [];
const statuses: Record<string, number> = {};
const errors: string[] = [];
const seen = (status: number): void => void (statuses[status] = (statuses[status] ?? 0) + 1);

if (mode === 'sql') {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  for (let start = 0; start < count; start += 10) {
    const jobs = Array.from({ length: Math.min(10, count - start) }, (_, i) => ({
      kind: 'echo',
      payload: { n: start + i },
    }));
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const results = await enqueueMany(client, jobs);
      await client.query('COMMIT');
      ids.push(...results.map((r) => r.id));
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      errors.push(String((error as Error).message));
    } finally {
      client.release();
    }
    const outcome = await nudge(servers[(start / 10) % servers.length]!);
    if (outcome.ok) seen(202);
    else if (outcome.error instanceof NudgeApiError) seen(outcome.error.status);
    else errors.push(`nudge: ${outcome.error.message}`);
  }
  await pool.end();
} else {
  const clients = servers.map((baseUrl) => createClient({ baseUrl }));
  for (let n = 0; n < count; n += 1) {
    try {
      const job = await clients[n % clients.length]!.enqueue({ kind: 'echo', payload: { n } });
      seen(job.created ? 201 : 200);
      ids.push(job.id);
    } catch (error) {
      if (error instanceof NudgeApiError) seen(error.status);
      errors.push(String((error as Error).message));
    }
  }
}
process.stdout.write(`${JSON.stringify({ ids, statuses, errors })}\n`);
