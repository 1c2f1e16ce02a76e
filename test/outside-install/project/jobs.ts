// What the producer and the in-process server share: the kinds, their payloads, and how a
// finished job is checked.
import { isDeepStrictEqual } from 'node:util';
import { createClient, type JobView, type NudgeClient } from '@nudge/client';

/** The payload of each kind in handlers.mjs. */
export interface Payloads {
  add: { a: number; b: number };
  greet: { name: string };
}

/** A job enqueued by one path, with the result its handler must return. */
export interface Expected {
  readonly via: string;
  readonly id: number;
  readonly result: unknown;
}

/** A typed HTTP client of the server at `baseUrl`. */
export function clientOf(baseUrl: string): NudgeClient<Payloads> {
  return createClient<Payloads>({ baseUrl, pollIntervalMs: 50 });
}

/**
 * Waits until every expected job finished, prints one line per job, and throws unless each one
 * SUCCEEDED with its expected result (compared as values: PostgreSQL's jsonb reorders keys).
 */
export async function checkJobs(client: NudgeClient<Payloads>, expected: readonly Expected[]): Promise<void> {
  const views: JobView[] = await client.waitFor(
    expected.map(({ id }) => id),
    { timeoutMs: 30_000 },
  );
  expected.forEach(({ via, id, result }, index) => {
    const view = views[index];
    if (!view) throw new Error(`job ${id} (${via}) was not returned`);
    console.log(`${via}: job ${id} ${view.kind} → ${view.status} ${JSON.stringify(view.result)}`);
    if (view.status !== 'SUCCEEDED')
      throw new Error(`job ${id} (${via}) is ${view.status}: ${view.lastError}`);
    if (!isDeepStrictEqual(view.result, result)) {
      throw new Error(
        `job ${id} (${via}) returned ${JSON.stringify(view.result)}, not ${JSON.stringify(result)}`,
      );
    }
  });
}

/** A variable the run sets. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset`);
  return value;
}
