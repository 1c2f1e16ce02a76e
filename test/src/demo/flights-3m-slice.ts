// The flights-3m test slice read a second way and aggregated in SQL: hyparquet's row objects (a Date
// and a BigInt per row, not the demo's column reader) loaded into a throwaway PostgreSQL database,
// every figure computed there, the p95 as the row at nearest rank ceil(0.95 × n) by row_number().
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { flights3mFile, type FlightsParquet } from '@nudge/demo';
import { createPostgresDatabase } from '../helpers/index.js';

/** The part of hyparquet's API read here, loaded from the demo package's own dependencies. */
interface Hyparquet {
  asyncBufferFromFile(path: string): Promise<unknown>;
  parquetReadObjects(options: {
    file: unknown;
    rowStart: number;
    rowEnd: number;
    columns: string[];
    compressors: unknown;
  }): Promise<Record<string, unknown>[]>;
}

async function importFromDemo<T>(name: string): Promise<T> {
  const demoRequire = createRequire(createRequire(import.meta.url).resolve('@nudge/demo'));
  return (await import(pathToFileURL(demoRequire.resolve(name)).href)) as T;
}

/** One flight as hyparquet's row objects give it. */
export interface SliceRow {
  readonly date: Date;
  readonly delay: number;
  readonly origin: string;
  readonly destination: string;
}

/** Reads row groups `first` to `last` (inclusive) as row objects with hyparquet's default conversions. */
export async function readSliceRows(
  parquet: FlightsParquet,
  first: number,
  last: number,
): Promise<SliceRow[]> {
  const hyparquet = await importFromDemo<Hyparquet>('hyparquet');
  const { compressors } = await importFromDemo<{ compressors: unknown }>('hyparquet-compressors');
  const from = parquet.rowGroups[first];
  const to = parquet.rowGroups[last];
  assert.ok(from && to);
  const objects = await hyparquet.parquetReadObjects({
    file: await hyparquet.asyncBufferFromFile(flights3mFile()),
    rowStart: from.rowStart,
    rowEnd: to.rowStart + to.rows,
    columns: ['date', 'delay', 'origin', 'destination'],
    compressors,
  });
  return objects.map((o) => {
    assert.ok(o.date instanceof Date && typeof o.delay === 'bigint');
    return {
      date: o.date,
      delay: Number(o.delay),
      origin: String(o.origin),
      destination: String(o.destination),
    };
  });
}

/** Count, mean, share delayed more than 15 min and nearest-rank p95 of one group of flights. */
export interface GroupRow {
  /** `null` for all origins. */
  readonly origin: string | null;
  /** `null` for all months. */
  readonly month: string | null;
  readonly flights: number;
  readonly mean: number;
  readonly share: number;
  readonly p95: number;
}

/** One route's traffic and mean delay. */
export interface RouteRow {
  readonly origin: string;
  readonly destination: string;
  readonly flights: number;
  readonly mean: number;
}

/** What SQL says about the slice. */
export interface SqlFigures {
  /** By {@link groupKey}: every (origin, month), origin, month, and the whole slice. */
  readonly groups: ReadonlyMap<string, GroupRow>;
  /** The busiest routes by origin, `*` for all origins: most flights first, ties by codes. */
  readonly routes: ReadonlyMap<string, readonly RouteRow[]>;
}

/** The key of a group in {@link SqlFigures.groups}; `null` stands for all origins or all months. */
export function groupKey(origin: string | null, month: string | null): string {
  return `${origin ?? '*'}|${month ?? '*'}`;
}

async function queryFigures(
  sql: pg.Client,
  rows: readonly SliceRow[],
  topRoutes: number,
): Promise<SqlFigures> {
  await sql.query(
    `CREATE TABLE flights AS
     SELECT to_char(to_timestamp(ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
            delay, origin, destination
     FROM unnest($1::float8[], $2::int[], $3::text[], $4::text[]) AS t(ms, delay, origin, destination)`,
    [
      rows.map((r) => r.date.getTime()),
      rows.map((r) => r.delay),
      rows.map((r) => r.origin),
      rows.map((r) => r.destination),
    ],
  );
  const { rows: stats } = await sql.query<Omit<GroupRow, 'p95'>>(
    `SELECT origin, month, count(*)::int AS flights, avg(delay)::float8 AS mean,
            avg((delay > 15)::int)::float8 AS share
     FROM flights GROUP BY GROUPING SETS ((origin, month), (origin), (month), ())`,
  );
  const p95 = new Map<string, number>();
  for (const [origin, month] of [
    ['origin', 'month'],
    ['origin', 'NULL'],
    ['NULL', 'month'],
    ['NULL', 'NULL'],
  ]) {
    const { rows: ranked } = await sql.query<{ origin: string | null; month: string | null; delay: number }>(
      `SELECT origin, month, delay FROM (
         SELECT ${origin}::text AS origin, ${month}::text AS month, delay,
                row_number() OVER w AS rank, count(*) OVER (PARTITION BY ${origin}, ${month}) AS n
         FROM flights WINDOW w AS (PARTITION BY ${origin}, ${month} ORDER BY delay)) ranked
       WHERE rank = (95 * n + 99) / 100`,
    );
    for (const row of ranked) p95.set(groupKey(row.origin, row.month), row.delay);
  }
  const groups = new Map<string, GroupRow>();
  for (const row of stats) {
    const key = groupKey(row.origin, row.month);
    groups.set(key, { ...row, p95: p95.get(key) ?? Number.NaN });
  }
  const routes = new Map<string, RouteRow[]>();
  const { rows: ranked } = await sql.query<RouteRow & { rank: string }>(
    `SELECT origin, destination, flights, mean,
            row_number() OVER (PARTITION BY origin ORDER BY flights DESC, destination COLLATE "C") AS rank
     FROM (SELECT origin, destination, count(*)::int AS flights, avg(delay)::float8 AS mean
           FROM flights GROUP BY origin, destination) r`,
  );
  for (const { rank, ...row } of ranked) {
    if (Number(rank) <= topRoutes) routes.set(row.origin, [...(routes.get(row.origin) ?? []), row]);
  }
  const { rows: overall } = await sql.query<RouteRow>(
    `SELECT origin, destination, count(*)::int AS flights, avg(delay)::float8 AS mean FROM flights
     GROUP BY origin, destination ORDER BY flights DESC, origin COLLATE "C", destination COLLATE "C" LIMIT $1`,
    [topRoutes],
  );
  routes.set('*', overall);
  return { groups, routes };
}

/** Loads `rows` into a throwaway PostgreSQL database, computes every figure in SQL, drops it. */
export async function sqlFigures(rows: readonly SliceRow[], topRoutes: number): Promise<SqlFigures> {
  const db = await createPostgresDatabase();
  try {
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      return await queryFigures(sql, rows, topRoutes);
    } finally {
      await sql.end();
    }
  } finally {
    await db.drop();
  }
}
