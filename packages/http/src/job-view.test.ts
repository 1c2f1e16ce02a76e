import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import type { Job } from '@nudge/core';
import { jobViewJson, jobViewSchema, toJobView } from './job-view.js';

const at = (ms: number): Date => new Date(Date.UTC(2030, 0, 1) + ms);

const base: Job = {
  id: 1,
  kind: 'send',
  queue: 'default',
  payload: { to: 'a@example.com', n: [1, 2.5, null], nested: { deep: true } },
  status: 'PENDING',
  priority: 0,
  runAt: at(0),
  attempts: 0,
  maxAttempts: 5,
  version: 0,
  claimedBy: null,
  leaseExpiresAt: null,
  lastError: null,
  idempotencyKey: null,
  concurrencyKey: null,
  throttleKey: null,
  debounceKey: null,
  result: null,
  progress: null,
  errors: [],
  createdAt: at(0),
  startedAt: null,
  finishedAt: null,
  dependsOn: [],
  onDependencyFailure: null,
  hasSteps: false,
  waitSignal: null,
};

const jobs: Job[] = [
  base,
  { ...base, id: 2, payload: 'a "quoted" \\ text with \n and \u2028 and 😀', idempotencyKey: 'k-1' },
  {
    ...base,
    id: 3,
    status: 'FAILED',
    attempts: 2,
    payload: [],
    result: { ok: false },
    progress: 42,
    lastError: 'boom "x"',
    errors: [
      { attempt: 1, at: at(5), error: 'first', instance: 'host:1' },
      { attempt: 2, at: at(9), error: 'second \u0001', instance: null },
    ],
    startedAt: at(7),
    finishedAt: at(9),
  },
  { ...base, id: 4, status: 'SUCCEEDED', payload: 0, result: 'done', startedAt: at(1), finishedAt: at(2) },
];

describe('jobViewJson', () => {
  it("writes the text Fastify's serializer for jobViewSchema writes", async () => {
    const app = Fastify();
    app.post('/view', { schema: { response: { 200: jobViewSchema } } }, async (request) =>
      toJobView(jobs[(request.body as { index: number }).index] as Job),
    );
    try {
      for (const [index, job] of jobs.entries()) {
        const response = await app.inject({ method: 'POST', url: '/view', payload: { index } });
        assert.equal(response.statusCode, 200);
        assert.equal(jobViewJson(toJobView(job)), response.body, `job ${job.id}`);
      }
    } finally {
      await app.close();
    }
  });
});
