// Checks the flights-3m part and merge computation on a slice of the file, row groups 0 and 1
// (545,454 flights, 2001-01-01 to 2001-02-03), against the same figures computed another way:
// the rows are read with hyparquet's row-object API and its default conversions (a Date and a
// BigInt per row, not the demo's column reader), loaded into PostgreSQL, and every figure comes
// from SQL, the p95 as the row at nearest rank ceil(0.95 × n) by row_number() over the sorted
// delays. It also checks that merging per-row-group partials equals aggregating the slice in one
// go, and equals the flights-20k code path (sorting every delay) on the same flights.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  ALL_ORIGINS,
  DelayPartialBuilder,
  FLIGHTS_3M,
  FlightsParquet,
  MERGE_KIND,
  PART_KIND,
  buildDelayReport,
  buildPartialReport,
  demoHandlers,
  flights3mFile,
  loadAirports,
  mergeDelayPartials,
  mergeFilePartials,
  parseDelayPartial,
  rowGroupPartial,
  type Airport,
  type AirportDelays,
  type DelayPartial,
  type DelayReport,
  type Flight,
} from '@nudge/demo';
import { groupKey, readSliceRows, sqlFigures, type SliceRow, type SqlFigures } from './flights-3m-slice.js';
import { runDemoHandler } from './demo-handler.js';

const ROW_GROUPS = [0, 1] as const;
const TOP_ROUTES = 5;

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9, `${what}: ${actual} is not within 1e-9 of ${expected}`);
}

let parquet: FlightsParquet;
let airports: ReadonlyMap<string, Airport>;
let rows: SliceRow[];
let sql: SqlFigures;
let partials: DelayPartial[];
let report: DelayReport;

before(async () => {
  parquet = await FlightsParquet.open(flights3mFile());
  airports = await loadAirports();
  rows = await readSliceRows(parquet, ROW_GROUPS[0], ROW_GROUPS[1]);
  sql = await sqlFigures(rows, TOP_ROUTES);
  partials = await Promise.all(ROW_GROUPS.map((index) => rowGroupPartial(parquet, index)));
  const merged = mergeDelayPartials(FLIGHTS_3M, partials);
  report = buildPartialReport(merged, airports, {
    dataset: FLIGHTS_3M,
    origin: ALL_ORIGINS,
    topRoutes: TOP_ROUTES,
  });
});

/** Compares a slice's figures (`origin` null for all origins) with SQL's. */
function assertMatchesSql(
  origin: string | null,
  figures: Pick<AirportDelays, 'total' | 'months' | 'topRoutes'>,
): void {
  const label = origin ?? ALL_ORIGINS;
  const expectStats = (month: string | null, stats: AirportDelays['total'], what: string): void => {
    const row = sql.groups.get(groupKey(origin, month));
    assert.ok(row, `SQL has no ${what}`);
    assert.equal(stats.flights, row.flights, `${what} flights`);
    assertClose(stats.meanDelayMinutes, row.mean, `${what} mean`);
    assertClose(stats.delayedShare, row.share, `${what} share`);
    assert.equal(stats.p95DelayMinutes, row.p95, `${what} p95`);
  };
  expectStats(null, figures.total, label);
  const months = [...sql.groups.values()]
    .filter((row) => row.origin === origin && row.month !== null)
    .map((row) => row.month)
    .sort();
  assert.deepEqual(
    figures.months.map((m) => m.month),
    months,
    `${label} months`,
  );
  for (const month of figures.months) expectStats(month.month, month, `${label} ${month.month}`);
  const expected = sql.routes.get(origin ?? '*') ?? [];
  assert.deepEqual(
    figures.topRoutes.map((r) => [r.origin, r.destination, r.flights]),
    expected.map((r) => [r.origin, r.destination, r.flights]),
    `${label} top routes`,
  );
  figures.topRoutes.forEach((r, i) =>
    assertClose(r.meanDelayMinutes, expected[i]?.mean ?? NaN, `${label} route ${i}`),
  );
}

describe('flights-3m partials merged, against SQL on row groups 0 and 1', () => {
  test('the slice as a whole, per month and its top routes', () => {
    assert.equal(report.total.flights, rows.length);
    assert.deepEqual(
      report.months.map((m) => m.month),
      ['2001-01', '2001-02'],
    );
    assertMatchesSql(null, report);
  });

  test('every origin airport, in order of departures, with its months and top routes', () => {
    const origins = [...sql.groups.values()]
      .filter((row) => row.origin !== null && row.month === null)
      .sort((a, b) => b.flights - a.flights || ((a.origin ?? '') < (b.origin ?? '') ? -1 : 1));
    assert.deepEqual(
      report.airports.map((a) => [a.iata, a.total.flights]),
      origins.map((row) => [row.origin, row.flights]),
    );
    for (const airport of report.airports) assertMatchesSql(airport.iata, airport);
    assert.equal(report.airports.find((a) => a.iata === 'ORD')?.name, "Chicago O'Hare International");
  });

  test('a one-origin report from the partials is that origin of the all-origins report', () => {
    const merged = mergeDelayPartials(FLIGHTS_3M, partials);
    const ord = buildPartialReport(merged, airports, {
      dataset: FLIGHTS_3M,
      origin: 'ORD',
      topRoutes: TOP_ROUTES,
    });
    assert.deepEqual(ord.airports, [report.airports.find((a) => a.iata === 'ORD')]);
    assertMatchesSql('ORD', ord);
  });
});

describe('the part/merge split', () => {
  test('merging per-row-group partials after a JSON round trip equals one pass over the slice', async () => {
    const oneShot = new DelayPartialBuilder(FLIGHTS_3M);
    for (const index of ROW_GROUPS) oneShot.addRowGroup(index, await parquet.readRowGroup(index));
    const stored = partials.map((p, i) => parseDelayPartial(JSON.parse(JSON.stringify(p)), `part ${i}`));
    assert.deepEqual(mergeDelayPartials(FLIGHTS_3M, stored), oneShot.toPartial());
    assert.deepEqual(mergeDelayPartials(FLIGHTS_3M, [...stored].reverse()), oneShot.toPartial());
  });

  test('the merged report equals the flights-20k code path (every delay sorted) on the same flights', () => {
    const pad = (n: number): string => String(n).padStart(2, '0');
    const flights: Flight[] = rows.map((r) => ({
      date: `${r.date.getUTCFullYear()}/${pad(r.date.getUTCMonth() + 1)}/${pad(r.date.getUTCDate())} ${pad(
        r.date.getUTCHours(),
      )}:${pad(r.date.getUTCMinutes())}`,
      delay: r.delay,
      distance: 0,
      origin: r.origin,
      destination: r.destination,
    }));
    const options = { dataset: FLIGHTS_3M, origin: ALL_ORIGINS, topRoutes: TOP_ROUTES };
    assert.deepEqual(report, buildDelayReport(flights, airports, options));
  });

  test('a merge refuses a row group counted twice, and a file merge refuses missing row groups', () => {
    const [first] = partials;
    assert.ok(first);
    assert.throws(() => mergeDelayPartials(FLIGHTS_3M, [first, first]), /row group 0 would be counted twice/);
    assert.throws(
      () => mergeFilePartials(parquet, FLIGHTS_3M, partials),
      /missing row groups \[2, 3, 4, 5, 6, 7, 8, 9, 10\]/,
    );
    const tampered = JSON.parse(JSON.stringify(first)) as { origins: { months: { flights: number }[] }[] };
    const month = tampered.origins[0]?.months[0];
    assert.ok(month);
    month.flights += 1;
    assert.throws(() => parseDelayPartial(tampered, 'job 7'), /job 7/);
  });
});

describe('the part and merge handlers', () => {
  test('flightDelayPart returns the row group partial, and fails for a row group the file lacks', async () => {
    const part = demoHandlers[PART_KIND];
    assert.equal(typeof part === 'object' && part.maxYoungGenerationSizeMb, 128);
    assert.ok(MERGE_KIND in demoHandlers);
    assert.deepEqual(await runDemoHandler(PART_KIND, { rowGroup: 1 }), partials[1]);
    await assert.rejects(runDemoHandler(PART_KIND, { rowGroup: 11 }), /row groups 0 to 10 \(asked for 11\)/);
  });

  test('flightDelayMerge reads the partials of the parts it depends on from ctx.dependencies', async () => {
    const [first, second] = partials;
    assert.ok(first && second);
    // Stored results come back as JSON: the handler parses them as a worker thread gets them.
    const asStored = (partial: DelayPartial): unknown => JSON.parse(JSON.stringify(partial));
    await assert.rejects(
      runDemoHandler(
        MERGE_KIND,
        {},
        {
          21: { status: 'SUCCEEDED', result: asStored(first) as never },
          22: { status: 'SUCCEEDED', result: asStored(second) as never },
        },
      ),
      /missing row groups \[2, 3, 4, 5, 6, 7, 8, 9, 10\]/,
      'both parts were read: only the other row groups are missing',
    );
    await assert.rejects(
      runDemoHandler(
        MERGE_KIND,
        {},
        {
          21: { status: 'SUCCEEDED', result: asStored(first) as never },
          22: { status: 'FAILED', result: null },
        },
      ),
      /part job 22 is FAILED/,
    );
    await assert.rejects(runDemoHandler(MERGE_KIND, {}), /no dependencies: enqueue it with dependsOn/);
  });
});
