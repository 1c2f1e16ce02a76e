import { ALL_ORIGINS } from './delay-report.js';
import { DATASET_NAMES, DEFAULT_DATASET, isDatasetName, type DatasetName } from './dataset-files.js';

/** The payload of a `flightDelayReport` job, defaults filled in. */
export interface ReportPayload {
  /** Which flights file. @defaultValue `'flights-20k'` */
  readonly dataset: DatasetName;
  /** One origin's IATA code (three letters or digits), or `'ALL'`. @defaultValue `'ALL'` */
  readonly origin: string;
  /** Routes listed per airport and for the slice, from 1 to 50. @defaultValue 5 */
  readonly topRoutes: number;
}

const IATA = /^[A-Z0-9]{3}$/;

/**
 * Checks the slice fields every report payload shares: `origin` (an IATA code or `'ALL'`) and
 * `topRoutes` (a whole number from 1 to 50).
 *
 * @throws Error naming the field at fault
 */
export function checkSlice(origin: unknown, topRoutes: unknown): { origin: string; topRoutes: number } {
  if (typeof origin !== 'string' || (origin !== ALL_ORIGINS && !IATA.test(origin))) {
    throw new Error(
      `payload.origin must be an IATA code like "ORD" or "ALL" (got ${JSON.stringify(origin)})`,
    );
  }
  if (typeof topRoutes !== 'number' || !Number.isInteger(topRoutes) || topRoutes < 1 || topRoutes > 50) {
    throw new Error(
      `payload.topRoutes must be a whole number from 1 to 50 (got ${JSON.stringify(topRoutes)})`,
    );
  }
  return { origin, topRoutes };
}

/**
 * Checks a `flightDelayReport` payload, e.g. `{"dataset": "flights-20k", "origin": "ORD"}`.
 *
 * @throws Error naming the field at fault
 */
export function parseReportPayload(payload: unknown): ReportPayload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error('the payload must be an object like {"dataset": "flights-20k", "origin": "ORD"}');
  }
  const {
    dataset = DEFAULT_DATASET,
    origin = ALL_ORIGINS,
    topRoutes = 5,
  } = payload as Record<string, unknown>;
  if (!isDatasetName(dataset)) {
    throw new Error(
      `payload.dataset must be one of ${DATASET_NAMES.join(', ')} (got ${JSON.stringify(dataset)})`,
    );
  }
  return { dataset, ...checkSlice(origin, topRoutes) };
}
