// Checks the demo's delay reports against the same figures computed independently: the raw JSON
// is loaded into an in-memory SQLite table with json_each (not the demo's parser) and every
// figure comes from SQL, the p95 by sorting with ORDER BY and taking the nearest rank by OFFSET.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import {
  ALL_ORIGINS,
  ARCHIVE_KIND,
  REPORT_KIND,
  airportsFile,
  datasetFile,
  demoHandlers,
  loadAirports,
  type AirportDelays,
  type ArchiveResult,
  type DelayReport,
  type RouteStats,
} from '@nudge/demo';
import { runDemoHandler } from './demo-handler.js';

const DATASET = 'flights-20k';
const AIRPORTS = ['ORD', 'DFW', 'ATL', 'LAX', 'SFO', 'BOS', 'JFK', 'HNL'];
const TOP_ROUTES = 5;

interface GroupRow {
  month: string;
  flights: number;
  mean: number;
  share: number;
}
interface RouteRow {
  origin: string;
  destination: string;
  flights: number;
  mean: number;
}

const flightDelayReport = async (payload: unknown): Promise<DelayReport> =>
  (await runDemoHandler(REPORT_KIND, payload)) as DelayReport;
const archiveReport = async (payload: unknown): Promise<ArchiveResult> =>
  (await runDemoHandler(ARCHIVE_KIND, payload)) as ArchiveResult;

let db: Database.Database;

before(() => {
  db = new Database(':memory:');
  db.exec(`CREATE TABLE flights (date TEXT, month TEXT, delay INTEGER, origin TEXT, destination TEXT)`);
  db.prepare(
    `INSERT INTO flights
     SELECT value ->> '$.date', substr(value ->> '$.date', 1, 4) || '-' || substr(value ->> '$.date', 6, 2),
            value ->> '$.delay', value ->> '$.origin', value ->> '$.destination'
     FROM json_each(?)`,
  ).run(readFileSync(datasetFile(DATASET), 'utf8'));
});

after(() => db.close());

/** Count, mean and share delayed > 15 min per (origin, month); `month` '*' for all months. */
function groups(origin: string | null): GroupRow[] {
  return db
    .prepare<{ origin: string | null }, GroupRow>(
      `SELECT month, count(*) AS flights, avg(delay) AS mean, avg(delay > 15) AS share
       FROM flights WHERE @origin IS NULL OR origin = @origin GROUP BY month
       UNION ALL
       SELECT '*', count(*), avg(delay), avg(delay > 15)
       FROM flights WHERE @origin IS NULL OR origin = @origin
       ORDER BY month`,
    )
    .all({ origin });
}

/** The nearest-rank p95: the ceil(0.95 × n)-th smallest delay, found by ORDER BY and OFFSET. */
function p95(origin: string | null, month: string): number {
  const row = db
    .prepare<{ origin: string | null; month: string }, { delay: number }>(
      `WITH slice AS (
         SELECT delay FROM flights
         WHERE (@origin IS NULL OR origin = @origin) AND (@month = '*' OR month = @month))
       SELECT delay FROM slice ORDER BY delay
       LIMIT 1 OFFSET (SELECT (95 * count(*) + 99) / 100 - 1 FROM slice)`,
    )
    .get({ origin, month });
  assert.ok(row, `no p95 for ${origin ?? 'ALL'} ${month}`);
  return row.delay;
}

function routes(origin: string | null): RouteRow[] {
  return db
    .prepare<{ origin: string | null; limit: number }, RouteRow>(
      `SELECT origin, destination, count(*) AS flights, avg(delay) AS mean
       FROM flights WHERE @origin IS NULL OR origin = @origin
       GROUP BY origin, destination ORDER BY flights DESC, origin, destination LIMIT @limit`,
    )
    .all({ origin, limit: TOP_ROUTES });
}

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9, `${what}: ${actual} is not within 1e-9 of ${expected}`);
}

/** Compares an airport's (or a slice's) figures with SQL's; `origin` null means every origin. */
function assertMatchesSql(
  origin: string | null,
  figures: Pick<AirportDelays, 'total' | 'months' | 'topRoutes'>,
): void {
  const label = origin ?? ALL_ORIGINS;
  const rows = groups(origin);
  const total = rows.find((row) => row.month === '*');
  const months = rows.filter((row) => row.month !== '*');
  assert.ok(total);
  assert.equal(figures.total.flights, total.flights, `${label} flights`);
  assertClose(figures.total.meanDelayMinutes, total.mean, `${label} mean`);
  assertClose(figures.total.delayedShare, total.share, `${label} share`);
  assert.equal(figures.total.p95DelayMinutes, p95(origin, '*'), `${label} p95`);
  assert.deepEqual(
    figures.months.map((m) => m.month),
    months.map((m) => m.month),
    `${label} months`,
  );
  for (const [i, month] of figures.months.entries()) {
    const row = months[i];
    assert.ok(row);
    assert.equal(month.flights, row.flights, `${label} ${row.month} flights`);
    assertClose(month.meanDelayMinutes, row.mean, `${label} ${row.month} mean`);
    assertClose(month.delayedShare, row.share, `${label} ${row.month} share`);
    assert.equal(month.p95DelayMinutes, p95(origin, row.month), `${label} ${row.month} p95`);
  }
  const expected = routes(origin);
  assert.deepEqual(
    figures.topRoutes.map((r: RouteStats) => [r.origin, r.destination, r.flights]),
    expected.map((r) => [r.origin, r.destination, r.flights]),
    `${label} top routes`,
  );
  figures.topRoutes.forEach((r, i) =>
    assertClose(r.meanDelayMinutes, expected[i]?.mean ?? NaN, `${label} route`),
  );
}

describe('flightDelayReport', () => {
  test('the kinds the producer enqueues are kinds of the handler module', () => {
    assert.ok(REPORT_KIND in demoHandlers);
    assert.ok(ARCHIVE_KIND in demoHandlers);
  });

  for (const origin of AIRPORTS) {
    test(`${origin}: counts, means, p95 and share per month and top routes match SQL`, async () => {
      const report = await flightDelayReport({ dataset: DATASET, origin });
      assert.equal(report.origin, origin);
      assert.equal(report.percentileMethod, 'nearest-rank');
      assert.equal(report.airports.length, 1);
      const airport = report.airports[0];
      assert.ok(airport);
      assert.equal(airport.iata, origin);
      assertMatchesSql(origin, report);
      assertMatchesSql(origin, airport);
    });
  }

  test('ALL: the whole dataset and every one of its origin airports match SQL', async () => {
    const report = await flightDelayReport({ dataset: DATASET });
    assert.equal(report.origin, ALL_ORIGINS);
    assert.equal(report.total.flights, 20_000);
    assertMatchesSql(null, report);
    const origins = db
      .prepare<[], { origin: string; flights: number }>(
        'SELECT origin, count(*) AS flights FROM flights GROUP BY origin ORDER BY flights DESC, origin',
      )
      .all();
    assert.deepEqual(
      report.airports.map((a) => [a.iata, a.total.flights]),
      origins.map((o) => [o.origin, o.flights]),
    );
    for (const airport of report.airports) assertMatchesSql(airport.iata, airport);
  });

  test('joins airport names from airports.csv, quoted fields included', async () => {
    const report = await flightDelayReport({ dataset: DATASET, origin: 'ORD' });
    assert.equal(report.airports[0]?.name, "Chicago O'Hare International");
    assert.equal(report.airports[0]?.city, 'Chicago');
    const airports = await loadAirports();
    const csv = readFileSync(airportsFile(), 'utf8');
    assert.equal(airports.size, csv.trimEnd().split('\n').length - 1);
    assert.equal(airports.get('BTR')?.name, 'Baton Rouge Metropolitan, Ryan');
    assert.equal(airports.get('BTR')?.state, 'LA');
    assert.equal(airports.get('DBN')?.name, 'W. H. "Bud" Barron');
  });

  test('fails for an origin with no flight (the schema checks the form only)', async () => {
    await assert.rejects(flightDelayReport({ origin: 'ZZZ' }), /no flight from origin ZZZ/);
  });
});

describe('archiveReport', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-demo-archive-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('writes a level-9 gzip that gunzips to the same JSON, and a re-run leaves one identical file', async () => {
    const report = await flightDelayReport({ dataset: DATASET, origin: 'LAX' });
    const payload = { name: 'delays-flights-20k-LAX', report, outputDir: dir };
    const first = await archiveReport(payload);
    assert.equal(first.path, join(dir, 'delays-flights-20k-LAX.json.gz'));
    const bytes = readFileSync(first.path);
    assert.equal(first.gzipBytes, bytes.length);
    const json = gunzipSync(bytes);
    assert.equal(first.bytes, json.length);
    assert.deepEqual(JSON.parse(json.toString('utf8')), report);
    assert.ok(first.gzipBytes < first.bytes / 2, 'gzip should at least halve the JSON');

    const second = await archiveReport(payload);
    assert.deepEqual(second, first);
    assert.deepEqual(readdirSync(dir), ['delays-flights-20k-LAX.json.gz']);
    assert.deepEqual(readFileSync(second.path), bytes);
    assert.ok(statSync(second.path).isFile());
  });

  test('without a report in its payload, archives the result of the one job it depends on', async () => {
    const report = await flightDelayReport({ dataset: DATASET, origin: 'ORD' });
    const payload = { name: 'delays-from-dependency', outputDir: dir };
    const written = (await runDemoHandler(ARCHIVE_KIND, payload, {
      7: { status: 'SUCCEEDED', result: JSON.parse(JSON.stringify(report)) as never },
    })) as ArchiveResult;
    assert.deepEqual(JSON.parse(gunzipSync(readFileSync(written.path)).toString('utf8')), report);
    await assert.rejects(
      runDemoHandler(ARCHIVE_KIND, payload),
      /must depend on exactly one job \(it has 0\)/,
    );
    await assert.rejects(
      runDemoHandler(ARCHIVE_KIND, payload, { 7: { status: 'CANCELLED', result: null } }),
      /job 7 is CANCELLED: nothing to archive/,
    );
  });
});
