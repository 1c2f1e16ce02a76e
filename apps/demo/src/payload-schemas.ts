import { Type } from '@sinclair/typebox';
import { DATASET_NAMES, FLIGHTS_3M } from './dataset-files.js';

// The payload of each demo kind as a TypeBox schema, declared on its kind in handlers.ts: the
// server refuses a payload that does not match (`PAYLOAD_INVALID`, naming the field by its JSON
// Pointer) and the handler gets it typed. Payloads are checked as sent, nothing filled in: each
// handler applies the defaults documented here.

/** Where archives go when the payload names no folder. */
export const DEFAULT_OUTPUT_DIR = './output/reports';

/** One origin's IATA code (three capital letters or digits), or `'ALL'`. @defaultValue `'ALL'` */
const origin = Type.String({ pattern: '^(ALL|[A-Z0-9]{3})$' });

/** Routes listed per airport and for the slice. @defaultValue 5 */
const topRoutes = Type.Integer({ minimum: 1, maximum: 50 });

/** The parquet dataset of the part and merge kinds. @defaultValue `'flights-3m'` */
const flights3m = Type.Literal(FLIGHTS_3M);

/**
 * `flightDelayReport`: `{dataset?: 'flights-20k', origin?: 'ORD' | 'ALL', topRoutes?: 5}`;
 * `dataset` defaults to `'flights-20k'`.
 */
export const reportPayload = Type.Object({
  dataset: Type.Optional(Type.Union(DATASET_NAMES.map((name) => Type.Literal(name)))),
  origin: Type.Optional(origin),
  topRoutes: Type.Optional(topRoutes),
});

/**
 * `flightDelayPart`: `{dataset?: 'flights-3m', rowGroup: 4}`, the row group from 0 (whether it
 * exists is checked against the file by the handler).
 */
export const partPayload = Type.Object({
  dataset: Type.Optional(flights3m),
  rowGroup: Type.Integer({ minimum: 0 }),
});

/**
 * `flightDelayMerge`: `{dataset?: 'flights-3m', origin?, topRoutes?}`. The parts to merge are the
 * jobs the merge job depends on (`dependsOn`), together covering every row group once; their
 * results reach the handler as `ctx.dependencies`.
 */
export const mergePayload = Type.Object({
  dataset: Type.Optional(flights3m),
  origin: Type.Optional(origin),
  topRoutes: Type.Optional(topRoutes),
});

/**
 * `archiveReport`: `{name: 'delays-ORD', report?: {…}, outputDir?: './output/reports'}`. `name` is
 * 1 to 128 letters, digits, `.`, `_` or `-`, not starting with a dot, so it names no other folder;
 * `report` is any JSON value, and when absent the result of the one job the archive job depends
 * on; `outputDir` is relative to the server's working directory.
 */
export const archivePayload = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$' }),
  report: Type.Optional(Type.Unknown()),
  outputDir: Type.Optional(Type.String({ pattern: '\\S' })),
});

/**
 * `reviewReport`: `{dataset?: 'flights-20k', origin?: 'ALL', coolOffMs?: 1000,
 * approvalTimeoutMs?: 60000, outputDir?: './output/reports'}`: the slice to review, the durable
 * sleep before asking for approval (0 to 10 minutes), the longest wait for the `approve` signal
 * (1 ms to one day), and where the approved review is archived.
 */
export const reviewPayload = Type.Object({
  dataset: Type.Optional(Type.Union(DATASET_NAMES.map((name) => Type.Literal(name)))),
  origin: Type.Optional(origin),
  coolOffMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  approvalTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  outputDir: Type.Optional(Type.String({ pattern: '\\S' })),
});
