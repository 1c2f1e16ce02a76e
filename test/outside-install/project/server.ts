// The service started from code rather than by `nudge serve`: typed options instead of
// environment variables, then a job over HTTP, then close(). DATABASE_URL is the database.
import { startServer } from '@nudge/server';
import { checkJobs, clientOf, required } from './jobs.js';

const server = await startServer({
  handlers: './handlers.mjs',
  databaseUrl: required('DATABASE_URL'),
  port: 0,
  threads: 1,
  pollIntervalMs: 200,
  logLevel: 'warn',
});
try {
  console.log(`startServer → ${server.url}, kinds ${server.engine.kinds.join(', ')}`);
  const client = clientOf(server.url);
  const job = await client.enqueue({ kind: 'greet', payload: { name: 'startServer' } });
  await checkJobs(client, [
    { via: 'HTTP to startServer', id: job.id, result: { greeting: 'hello, startServer', attempt: 1 } },
  ]);
} finally {
  await server.close();
  console.log('closed');
}
