import { FLIGHTS_3M } from './dataset-files.js';
import { ALL_ORIGINS } from './delay-report.js';
import { checkSlice } from './report-payload.js';

/** The payload of a `flightDelayMerge` job, defaults filled in. */
export interface MergePayload {
  /** The parquet dataset. @defaultValue `'flights-3m'` */
  readonly dataset: typeof FLIGHTS_3M;
  /**
   * Ids of the `flightDelayPart` jobs whose results to merge: together they must cover every row
   * group of the file once. Ids, not the partials themselves, keep the payload a few bytes.
   */
  readonly parts: readonly number[];
  /**
   * Base URL of a nudge server on the same database, where the handler reads the parts' results
   * (`GET /jobs/:id`), e.g. `http://127.0.0.1:3000`.
   */
  readonly nudgeUrl: string;
  /** One origin's IATA code, or `'ALL'`. @defaultValue `'ALL'` */
  readonly origin: string;
  /** Routes listed per airport and for the slice, from 1 to 50. @defaultValue 5 */
  readonly topRoutes: number;
}

/** Most part jobs one merge accepts: far more than any parquet file here has row groups. */
const MAX_PARTS = 10_000;

/**
 * Checks a `flightDelayMerge` payload, e.g.
 * `{"dataset": "flights-3m", "parts": [1, 2, 3], "nudgeUrl": "http://127.0.0.1:3000"}`.
 *
 * @throws Error naming the field at fault
 */
export function parseMergePayload(payload: unknown): MergePayload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error(
      'the payload must be an object like {"parts": [1, 2], "nudgeUrl": "http://127.0.0.1:3000"}',
    );
  }
  const {
    dataset = FLIGHTS_3M,
    parts,
    nudgeUrl,
    origin = ALL_ORIGINS,
    topRoutes = 5,
  } = payload as Record<string, unknown>;
  if (dataset !== FLIGHTS_3M) {
    throw new Error(`payload.dataset must be "${FLIGHTS_3M}" (got ${JSON.stringify(dataset)})`);
  }
  if (
    !Array.isArray(parts) ||
    parts.length === 0 ||
    parts.length > MAX_PARTS ||
    !parts.every((id) => Number.isSafeInteger(id) && (id as number) > 0) ||
    new Set(parts).size !== parts.length
  ) {
    throw new Error(
      `payload.parts must list 1 to ${MAX_PARTS} distinct job ids (got ${JSON.stringify(parts)})`,
    );
  }
  if (typeof nudgeUrl !== 'string' || !/^https?:\/\//.test(nudgeUrl) || !URL.canParse(nudgeUrl)) {
    throw new Error(
      `payload.nudgeUrl must be an http(s) URL like http://127.0.0.1:3000 (got ${JSON.stringify(nudgeUrl)})`,
    );
  }
  return { dataset, parts: parts as number[], nudgeUrl, ...checkSlice(origin, topRoutes) };
}
