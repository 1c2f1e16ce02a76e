// What the server end-to-end tests do over HTTP: enqueue, read and command jobs, read metrics.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { waitUntil } from '../helpers/index.js';

/** The fields of a job's view (`GET /jobs/:id`) these tests read. */
export interface JobView {
  readonly id: number;
  readonly status: string;
  readonly attempts: number;
  readonly queue: string;
  readonly progress: unknown;
  readonly result: unknown;
}

/** `POST url` with a JSON body; asserts the status and returns the parsed answer. */
export async function postJson<T>(url: string, body: object | undefined, status: number): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.equal(response.status, status, `POST ${url}: ${text}`);
  return JSON.parse(text) as T;
}

/** `POST /jobs`; asserts `201 Created`. */
export const postJob = (server: string, body: object): Promise<JobView> =>
  postJson<JobView>(`${server}/jobs`, body, 201);

/** `GET /jobs/:id`; asserts `200`. */
export async function getJob(server: string, id: number): Promise<JobView> {
  const response = await fetch(`${server}/jobs/${id}`);
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as JobView;
}

/** Reads the job over HTTP until `check` passes it (every 25 ms, up to `timeoutMs`). */
export function untilJob(
  server: string,
  id: number,
  check: (job: JobView) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<JobView> {
  return waitUntil(
    async () => {
      const job = await getJob(server, id);
      return check(job) ? job : undefined;
    },
    timeoutMs,
    25,
    `job ${id} ${what}`,
  );
}

/** Reads the job over HTTP until its status is `status`. */
export const untilStatus = (server: string, id: number, status: string, timeoutMs?: number) =>
  untilJob(server, id, (job) => job.status === status, `to be ${status}`, timeoutMs);

/** The lines of a file a handler appends to; none before it exists. */
export function fileLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

/** Waits until the file a handler appends to has a line `line`; returns every line. */
export function untilLine(path: string, line: string, timeoutMs = 30_000): Promise<string[]> {
  return waitUntil(
    () => {
      const lines = fileLines(path);
      return lines.includes(line) ? lines : undefined;
    },
    timeoutMs,
    10,
    `"${line}" in ${path}`,
  );
}

/** How many claim queries the server has run so far, from `GET /metrics`. */
export async function claimQueries(server: string): Promise<number> {
  const response = await fetch(`${server}/metrics`);
  assert.equal(response.status, 200);
  // Only this line: the strict parser of the metrics tests refuses other samples (prom-client prints
  // a NaN as `Nan`), which are not this test's concern.
  const line = /^nudge_claim_query_duration_seconds_count(?:\{\})? (\d+)$/m.exec(await response.text());
  assert.ok(line, 'GET /metrics has nudge_claim_query_duration_seconds_count');
  return Number(line[1]);
}
