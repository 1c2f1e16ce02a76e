// Prints the span tree of a real run, as docs/observability.md shows it: starts a nudge server
// (SQLite, the traced test handlers) exporting over OTLP/HTTP to a receiver in this process,
// enqueues one job through POST /jobs inside a caller's trace (the job fails its first attempt
// and enqueues a follow-up), waits for the spans, and prints each trace as an indented tree.
// Run after `npx tsc -b`: node scripts/trace-tree.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '../apps/harness/dist/index.js';
import { OtlpReceiver } from '../test/dist/helpers/otlp-receiver.js';

const KINDS = ['', 'internal', 'server', 'client', 'producer', 'consumer'];
const dir = mkdtempSync(join(tmpdir(), 'nudge-trace-tree-'));
const receiver = await OtlpReceiver.start();
const server = await spawnServer({
  env: {
    DATABASE_URL: `sqlite:${join(dir, 'nudge.db')}`,
    NUDGE_HANDLERS: fileURLToPath(new URL('../test/dist/fixtures/handlers-traced.js', import.meta.url)),
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'nudge',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  },
});
try {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const response = await fetch(`${server.url}/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ kind: 'cpuWork', payload: { failFirst: true, followUp: 'asyncWork' } }),
  });
  if (response.status !== 201) throw new Error(`POST /jobs answered ${response.status}`);
  const { id } = await response.json();
  const deadline = Date.now() + 20_000;
  const consumers = () => receiver.spans.filter((s) => s.kind === 5);
  while (consumers().length < 3 || receiver.spans.filter((s) => s.name === 'handler work').length < 3) {
    if (Date.now() > deadline) throw new Error('the spans did not arrive');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const describe = (span) => {
    const a = span.attributes;
    const shown = [
      'messaging.destination.name',
      'messaging.message.id',
      'messaging.batch.message_count',
      'nudge.job.attempt',
      'nudge.job.outcome',
      'http.route',
    ]
      .filter((key) => a[key] !== undefined)
      .map((key) => `${key.replace(/^(messaging|nudge\.job)\./, '')}=${a[key]}`);
    const status = span.statusCode === 2 ? ' ERROR' : '';
    const links = span.links.map((l) => ` link→${l.spanId}`).join('');
    return `${span.name} [${KINDS[span.kind]}]${status} ${shown.join(' ')}${links} (${span.spanId})`;
  };
  const print = (span, depth) => {
    console.log(`${'  '.repeat(depth)}${describe(span)}`);
    for (const child of receiver.spans.filter((s) => s.parentSpanId === span.spanId)) print(child, depth + 1);
  };
  const ids = new Set(receiver.spans.map((s) => s.spanId));
  const roots = receiver.spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  console.log(`job ${id}; the caller's span is 00f067aa0ba902b7 in trace ${traceId}`);
  for (const root of roots) {
    console.log(
      `\ntrace ${root.traceId}${root.parentSpanId ? ` (under the caller's span ${root.parentSpanId})` : ''}`,
    );
    print(root, 1);
  }
} finally {
  await server.stop('SIGTERM', 20_000);
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
