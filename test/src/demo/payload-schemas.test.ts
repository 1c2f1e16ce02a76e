// The demo's payload schemas, as the server applies them: the demo's handler module is loaded by
// a real server (SQLite), and each payload goes through POST /jobs. A malformed one is refused
// with PAYLOAD_INVALID naming the field by its JSON Pointer; a well-formed one is stored (delayed
// an hour, so that nothing runs).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServer, type RunningServer } from '@nudge/server';

const DEMO_HANDLERS = join(dirname(createRequire(import.meta.url).resolve('@nudge/demo')), 'handlers.js');

/** Payloads the schemas refuse, with the pointer the message must name. */
const REFUSED: ReadonlyArray<readonly [kind: string, payload: unknown, pointer: string]> = [
  ['flightDelayReport', { dataset: 'flights-1m' }, '/payload/dataset'],
  ['flightDelayReport', { origin: 'chicago' }, '/payload/origin'],
  ['flightDelayReport', { topRoutes: 51 }, '/payload/topRoutes'],
  ['flightDelayReport', [], '/payload'],
  ['flightDelayPart', {}, '/payload/rowGroup'],
  ['flightDelayPart', { rowGroup: -1 }, '/payload/rowGroup'],
  ['flightDelayPart', { rowGroup: 1.5 }, '/payload/rowGroup'],
  ['flightDelayPart', { dataset: 'flights-20k', rowGroup: 0 }, '/payload/dataset'],
  ['flightDelayMerge', { origin: 'x' }, '/payload/origin'],
  ['flightDelayMerge', { dataset: 'flights-20k' }, '/payload/dataset'],
  ['flightDelayMerge', { topRoutes: 0 }, '/payload/topRoutes'],
  ['archiveReport', { name: '../escape', report: {} }, '/payload/name'],
  ['archiveReport', { name: '.hidden', report: {} }, '/payload/name'],
  ['archiveReport', { name: 'x', report: {}, outputDir: ' ' }, '/payload/outputDir'],
  ['reviewReport', { origin: 'chicago' }, '/payload/origin'],
  ['reviewReport', { coolOffMs: -1 }, '/payload/coolOffMs'],
  ['reviewReport', { coolOffMs: 600_001 }, '/payload/coolOffMs'],
  ['reviewReport', { approvalTimeoutMs: 0 }, '/payload/approvalTimeoutMs'],
  ['reviewReport', { dataset: 'flights-3m' }, '/payload/dataset'],
];

/** Payloads the schemas accept, defaults left out where there are some. */
const ACCEPTED: ReadonlyArray<readonly [kind: string, payload: unknown]> = [
  ['flightDelayReport', {}],
  ['flightDelayReport', { dataset: 'flights-2k', origin: 'ORD', topRoutes: 50 }],
  ['flightDelayPart', { rowGroup: 4 }],
  ['flightDelayPart', { dataset: 'flights-3m', rowGroup: 0 }],
  ['flightDelayMerge', {}],
  ['flightDelayMerge', { dataset: 'flights-3m', origin: 'ALL', topRoutes: 5 }],
  ['archiveReport', { name: 'delays-ORD', report: null }],
  // Without a report: it archives the result of the one job it depends on.
  ['archiveReport', { name: 'delays-ALL' }],
  ['archiveReport', { name: 'delays.ORD_1', report: { a: 1 }, outputDir: './reports' }],
  ['reviewReport', {}],
  [
    'reviewReport',
    { dataset: 'flights-2k', origin: 'ORD', coolOffMs: 0, approvalTimeoutMs: 1, outputDir: './reviews' },
  ],
];

describe("the demo's payload schemas, through POST /jobs", () => {
  let dir: string;
  let server: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-demo-schemas-'));
    server = await startServer({
      handlers: DEMO_HANDLERS,
      databaseUrl: `sqlite:${join(dir, 'nudge.db')}`,
      port: 0,
      threads: 1,
      logLevel: 'error',
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (kind: string, payload: unknown) => {
    const response = await fetch(`${server.url}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, payload, delayMs: 3_600_000 }),
    });
    return { status: response.status, body: (await response.json()) as { code?: string; message?: string } };
  };

  for (const [kind, payload, pointer] of REFUSED) {
    test(`${kind} refuses ${JSON.stringify(payload)}, naming ${pointer}`, async () => {
      const { status, body } = await post(kind, payload);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.code, 'PAYLOAD_INVALID');
      assert.ok(body.message?.startsWith(`${pointer} `), body.message);
    });
  }

  for (const [kind, payload] of ACCEPTED) {
    test(`${kind} accepts ${JSON.stringify(payload)}`, async () => {
      const { status, body } = await post(kind, payload);
      assert.equal(status, 201, JSON.stringify(body));
    });
  }
});
