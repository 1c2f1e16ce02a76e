import { FLIGHTS_3M } from './dataset-files.js';

/** The payload of a `flightDelayPart` job, defaults filled in. */
export interface PartPayload {
  /** The parquet dataset. @defaultValue `'flights-3m'` */
  readonly dataset: typeof FLIGHTS_3M;
  /** The row group to aggregate, from 0 (flights-3m has 11). */
  readonly rowGroup: number;
}

/**
 * Checks a `flightDelayPart` payload, e.g. `{"dataset": "flights-3m", "rowGroup": 4}`. Whether the
 * row group exists is checked against the file by the handler.
 *
 * @throws Error naming the field at fault
 */
export function parsePartPayload(payload: unknown): PartPayload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error('the payload must be an object like {"dataset": "flights-3m", "rowGroup": 4}');
  }
  const { dataset = FLIGHTS_3M, rowGroup } = payload as Record<string, unknown>;
  if (dataset !== FLIGHTS_3M) {
    throw new Error(`payload.dataset must be "${FLIGHTS_3M}" (got ${JSON.stringify(dataset)})`);
  }
  if (typeof rowGroup !== 'number' || !Number.isInteger(rowGroup) || rowGroup < 0) {
    throw new Error(`payload.rowGroup must be a row group number from 0 (got ${JSON.stringify(rowGroup)})`);
  }
  return { dataset, rowGroup };
}
