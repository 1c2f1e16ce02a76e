// The handler module the nudge server loads in each worker thread (NUDGE_HANDLERS). Every exported
// function is a handler named by its export name, so this file exports handlers and nothing else.
import { parseArchivePayload } from './archive-payload.js';
import { archiveJson, type ArchiveResult } from './archive-json.js';
import { buildDelayReport, type DelayReport } from './delay-report.js';
import { loadAirports, loadFlights } from './flight-data-cache.js';
import type { JobContext } from './job-context.js';
import { parseReportPayload } from './report-payload.js';

/**
 * Kind `flightDelayReport`: aggregates a flights dataset's delays for one origin airport or all
 * of them (per airport, month and route; mean, nearest-rank p95, share delayed more than 15 min).
 * Parsed files are cached per thread. Reads only, so a re-run returns the same report.
 *
 * @param payload - `{dataset?: 'flights-20k', origin?: 'ORD' | 'ALL', topRoutes?: 5}`
 * @throws Error when the payload is invalid, a file cannot be read, or the slice has no flight
 */
export async function flightDelayReport(payload: unknown, ctx: JobContext): Promise<DelayReport> {
  const options = parseReportPayload(payload);
  const [flights, airports] = await Promise.all([loadFlights(options.dataset), loadAirports()]);
  ctx.signal.throwIfAborted();
  return buildDelayReport(flights, airports, options);
}

/**
 * Kind `archiveReport`: writes `payload.report` as gzipped JSON (level 9) to
 * `<outputDir>/<name>.json.gz`, atomically, so a re-run leaves one identical file.
 *
 * @param payload - `{name: 'delays-ORD', report: {…}, outputDir?: './output/reports'}`
 * @returns the absolute path, the JSON size and the gzip size in bytes
 * @throws Error when the payload is invalid or the folder cannot be written
 */
export async function archiveReport(payload: unknown, ctx: JobContext): Promise<ArchiveResult> {
  const { name, report, outputDir } = parseArchivePayload(payload);
  ctx.signal.throwIfAborted();
  return archiveJson(name, report, outputDir);
}
