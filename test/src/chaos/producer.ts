// A producer process for the chaos scenarios, as an application would enqueue: through
// @nudge/client in its own transactions on its own connection. Usage:
//   node producer.js DATABASE_URL COUNT PER_TXN ACCEPTED_FILE [NUDGE_URL] [--die-before-nudge] [--job-ms=N]
// Each job is a `work` job of N ms (default 0).
// After each committed transaction it appends `A <id> <id> …` to ACCEPTED_FILE (one write, so a
// kill never leaves half a line); an enqueue that fails appends `E <code> <message>`. With
// NUDGE_URL it then POSTs /nudge, unless --die-before-nudge, which SIGKILLs itself after the
// first commit is recorded and before its nudge: the job must still run, by the poll loop.
import { appendFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { enqueueMany, nudge } from '@nudge/client';

const [url, countText, perTxnText, acceptedFile, nudgeUrl] = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith('--'));
if (!url || !countText || !perTxnText || !acceptedFile) {
  throw new Error(
    'usage: producer DATABASE_URL COUNT PER_TXN ACCEPTED_FILE [NUDGE_URL] [--die-before-nudge] [--job-ms=N]',
  );
}
const dieBeforeNudge = process.argv.includes('--die-before-nudge');
const jobMs = Number(process.argv.find((arg) => arg.startsWith('--job-ms='))?.slice('--job-ms='.length) ?? 0);
const count = Number(countText);
const perTxn = Number(perTxnText);
const sqlite = url.startsWith('sqlite:') ? new Database(url.slice('sqlite:'.length)) : undefined;
sqlite?.pragma('busy_timeout = 5000');
const pool = sqlite ? undefined : new pg.Pool({ connectionString: url, max: 1 });

for (let start = 0; start < count; start += perTxn) {
  const jobs = Array.from({ length: Math.min(perTxn, count - start) }, () => ({
    kind: 'work',
    payload: { ms: jobMs },
  }));
  try {
    const results = await enqueueMany((sqlite ?? pool)!, jobs);
    appendFileSync(acceptedFile, `A ${results.map((r) => r.id).join(' ')}\n`);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'ERROR';
    appendFileSync(acceptedFile, `E ${code} ${String((error as Error).message).replace(/\s+/g, ' ')}\n`);
    continue;
  }
  if (dieBeforeNudge) process.kill(process.pid, 'SIGKILL');
  if (nudgeUrl) await nudge(nudgeUrl);
}
sqlite?.close();
await pool?.end();
