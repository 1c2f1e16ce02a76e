// Traces end to end: a real nudge server process exports its spans (main thread and worker
// threads) over OTLP/HTTP to a receiver of this test; the producer, in this process, exports to
// an in-memory exporter. Both dialects, both execution classes.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  createTestDatabase,
  DIALECTS,
  OtlpReceiver,
  rawQuery,
  waitUntil,
  type ReceivedSpan,
  type TestDatabase,
} from '../helpers/index.js';
import { producerExecutors } from '../client/producer-executors.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/handlers-traced.js', import.meta.url));
const CONSUMER = 5;
const PRODUCER = 4;
const SERVER = 2;

const producerSpans = new InMemorySpanExporter();
const sdk = new NodeSDK({ spanProcessors: [new SimpleSpanProcessor(producerSpans)], instrumentations: [] });
sdk.start();
after(() => sdk.shutdown());

const tracer = trace.getTracer('nudge-test-producer');

/** Runs `fn` inside a new active span `name`, ended after it; returns both. */
async function inSpan<T>(name: string, fn: () => Promise<T>): Promise<{ span: ReadableSpan; value: T }> {
  const span = tracer.startSpan(name);
  const value = await context.with(trace.setSpan(context.active(), span), fn);
  span.end();
  const done = producerSpans
    .getFinishedSpans()
    .find((s) => s.spanContext().spanId === span.spanContext().spanId);
  assert.ok(done);
  return { span: done, value };
}

/** The producer's `send` span that is a child of `parent`. */
function sendSpanUnder(parent: ReadableSpan): ReadableSpan {
  const send = producerSpans
    .getFinishedSpans()
    .find((s) => s.name === 'send' && s.parentSpanContext?.spanId === parent.spanContext().spanId);
  assert.ok(send, 'the client made a send span under the active span');
  assert.equal(send.kind, SpanKind.PRODUCER);
  return send;
}

for (const dialect of DIALECTS) {
  describe(`traces end to end: ${dialect}`, () => {
    let db: TestDatabase;
    let receiver: OtlpReceiver;
    let server: ServerProcess;
    before(async () => {
      db = await createTestDatabase(dialect);
      receiver = await OtlpReceiver.start();
      server = await spawnServer({
        env: {
          DATABASE_URL: db.url,
          NUDGE_HANDLERS: HANDLERS,
          NUDGE_THREADS: '2',
          NUDGE_POLL_INTERVAL_MS: '100',
          LOG_LEVEL: 'warn',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'nudge-traces-test',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          OTEL_METRICS_EXPORTER: 'none',
          OTEL_LOGS_EXPORTER: 'none',
        },
      });
    });
    after(async () => {
      await server?.stop('SIGTERM', 20_000);
      await receiver?.close();
      await db?.drop();
    });

    /** The spans of attempts of job `id`, waiting until `count` arrived. */
    const processSpans = (id: number, count = 1): Promise<ReceivedSpan[]> =>
      waitUntil(
        () => {
          const found = receiver.spans.filter(
            (s) => s.kind === CONSUMER && s.attributes['messaging.message.id'] === String(id),
          );
          return found.length >= count ? found : undefined;
        },
        20_000,
        25,
        `${count} process spans of job ${id}`,
      );

    const childrenOf = (span: ReceivedSpan, name: string): Promise<ReceivedSpan> =>
      waitUntil(
        () => receiver.spans.find((s) => s.parentSpanId === span.spanId && s.name === name),
        20_000,
        25,
        `a "${name}" span under ${span.name}`,
      );

    for (const kind of ['cpuWork', 'asyncWork'] as const) {
      test(`a producer's transaction leads through the service to the ${kind} handler's span in its worker thread`, async () => {
        const [executor] = producerExecutors(dialect);
        assert.ok(executor);
        const { span: checkout, value } = await inSpan('checkout', () =>
          executor.write(db, [{ kind, payload: {} }], false),
        );
        const [result] = value;
        assert.ok(result);
        const send = sendSpanUnder(checkout);
        const [attempt] = await processSpans(result.id);
        assert.ok(attempt);
        assert.equal(attempt.name, `process ${kind}`);
        assert.equal(
          attempt.traceId,
          checkout.spanContext().traceId,
          'the attempt continues the producer trace',
        );
        assert.equal(attempt.parentSpanId, send.spanContext().spanId, 'child of the send span');
        assert.deepEqual(
          {
            system: attempt.attributes['messaging.system'],
            operation: attempt.attributes['messaging.operation.type'],
            destination: attempt.attributes['messaging.destination.name'],
            attempt: attempt.attributes['nudge.job.attempt'],
            kind: attempt.attributes['nudge.job.kind'],
            outcome: attempt.attributes['nudge.job.outcome'],
          },
          {
            system: 'nudge',
            operation: 'process',
            destination: 'default',
            attempt: 1,
            kind,
            outcome: 'succeeded',
          },
        );
        const work = await childrenOf(attempt, 'handler work');
        assert.equal(work.attributes['test.job_id'], result.id, "the handler's own span, in its thread");
      });
    }

    test("a retried job's second attempt links to its producer; the first is its child and records the error", async () => {
      const [executor] = producerExecutors(dialect);
      assert.ok(executor);
      const { span: checkout, value } = await inSpan('checkout', () =>
        executor.write(db, [{ kind: 'asyncWork', payload: { failFirst: true } }], false),
      );
      const [result] = value;
      assert.ok(result);
      const send = sendSpanUnder(checkout);
      const attempts = await processSpans(result.id, 2);
      const first = attempts.find((s) => s.attributes['nudge.job.attempt'] === 1);
      const second = attempts.find((s) => s.attributes['nudge.job.attempt'] === 2);
      assert.ok(first && second);
      assert.equal(first.parentSpanId, send.spanContext().spanId);
      assert.equal(first.attributes['nudge.job.outcome'], 'threw');
      assert.equal(first.statusCode, 2, 'an error status');
      assert.ok(first.events.includes('exception'), 'the exception is recorded');
      assert.equal(second.parentSpanId, undefined, 'a later attempt starts a trace of its own');
      assert.notEqual(second.traceId, checkout.spanContext().traceId);
      assert.deepEqual(second.links, [
        { traceId: send.spanContext().traceId, spanId: send.spanContext().spanId },
      ]);
      assert.equal(second.attributes['nudge.job.outcome'], 'succeeded');
    });

    test('a plain-SQL job without a trace context still gets a root span', async () => {
      await rawQuery(db, `INSERT INTO nudge_jobs (kind, queue) VALUES ('cpuWork', 'plain')`);
      const [row] = await rawQuery<{ id: number }>(
        db,
        `SELECT max(id) AS id FROM nudge_jobs WHERE queue = 'plain'`,
      );
      assert.ok(row);
      const [attempt] = await processSpans(Number(row.id));
      assert.ok(attempt);
      assert.equal(attempt.parentSpanId, undefined);
      assert.deepEqual(attempt.links, []);
      assert.equal(attempt.attributes['messaging.destination.name'], 'plain');
      await childrenOf(attempt, 'handler work');
    });

    test("POST /jobs continues the request's traceparent through a server span and a send span; ctx.enqueue follow-ups continue the attempt", async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const callerSpanId = '00f067aa0ba902b7';
      const response = await fetch(`${server.url}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
        body: JSON.stringify({ kind: 'cpuWork', payload: { followUp: 'asyncWork' } }),
      });
      assert.equal(response.status, 201);
      const { id } = (await response.json()) as { id: number };
      const [attempt] = await processSpans(id);
      assert.ok(attempt);
      assert.equal(attempt.traceId, traceId);
      // The main thread exports its spans apart from the worker thread: wait for each one.
      const exported = (spanId: string | undefined, what: string): Promise<ReceivedSpan> =>
        waitUntil(() => receiver.spans.find((s) => s.spanId === spanId), 20_000, 25, what);
      const send = await exported(attempt.parentSpanId, "the attempt's parent");
      assert.equal(send.name, 'send');
      assert.equal(send.kind, PRODUCER);
      assert.equal(send.attributes['messaging.message.id'], String(id));
      // Up from the send span (through @fastify/otel's handler span) to the HTTP server span.
      let request = await exported(send.parentSpanId, "the send span's parent");
      while (request.kind !== SERVER) request = await exported(request.parentSpanId, 'the server span');
      assert.equal(request.parentSpanId, callerSpanId, "the server span continues the caller's");
      const followUpSend = await childrenOf(attempt, 'send');
      const followUp = await waitUntil(
        () => receiver.spans.find((s) => s.kind === CONSUMER && s.parentSpanId === followUpSend.spanId),
        20_000,
        25,
        'the follow-up attempt',
      );
      assert.equal(followUp.name, 'process asyncWork');
      assert.equal(followUp.traceId, traceId);
    });
  });
}
