// The handler module the nudge server loads in each worker thread (NUDGE_HANDLERS). Every export
// is a kind named by its export name (a function, or a definition object with its handler), so
// this file exports handlers and nothing else.
import { createClient } from '@nudge/client';
import { parseArchivePayload } from './archive-payload.js';
import { archiveJson, type ArchiveResult } from './archive-json.js';
import type { DelayPartial } from './delay-partial.js';
import { buildDelayReport, type DelayReport } from './delay-report.js';
import { fetchPartPartials } from './fetch-part-partials.js';
import { loadAirports, loadFlights, loadFlights3m } from './flight-data-cache.js';
import type { JobContext } from './job-context.js';
import { mergeFilePartials } from './merge-file-partials.js';
import { parseMergePayload } from './merge-payload.js';
import { buildPartialReport } from './partial-report.js';
import { parsePartPayload } from './part-payload.js';
import { parseReportPayload } from './report-payload.js';
import { rowGroupPartial } from './row-group-partial.js';

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
 * Kind `flightDelayPart`: reads one row group of flights-3m.parquet (about 273,000 flights) in
 * its worker thread and returns a mergeable partial: per origin airport and month the flight
 * count, delay sum, flights delayed more than 15 min and a histogram of delays in whole minutes;
 * per route the flight count and delay sum. CPU-bound; reads only, so a re-run returns the same.
 *
 * @param payload - `{dataset?: 'flights-3m', rowGroup: 0}`
 * @throws Error when the payload is invalid, the file cannot be read or has no such row group
 */
export const flightDelayPart = {
  execution: 'cpu' as const,
  // The decode allocates heavily: a young generation of 128 MB (V8's default is 16 to 64 MB by
  // heap size) cuts the scavenges that slow two parts decoding side by side. This kind gets a
  // Piscina pool of its own with that setting, sharing the cpu class's slots.
  maxYoungGenerationSizeMb: 128,
  handler: async (payload: unknown, ctx: JobContext): Promise<DelayPartial> => {
    const { dataset, rowGroup } = parsePartPayload(payload);
    const parquet = await loadFlights3m();
    ctx.signal.throwIfAborted();
    return rowGroupPartial(parquet, rowGroup, dataset);
  },
};

/**
 * Kind `flightDelayMerge`: reads the results of the given `flightDelayPart` jobs from the nudge
 * server (`GET /jobs/:id`), checks that they cover every row group of the file once, merges them
 * and builds the same report as `flightDelayReport` (exact nearest-rank p95 from the merged
 * histograms). Reads only, so a re-run returns the same report.
 *
 * @param payload - `{parts: [12, 13, …], nudgeUrl: 'http://127.0.0.1:3000', origin?: 'ALL', topRoutes?: 5}`
 * @throws Error when the payload is invalid, a part has not succeeded, or the parts do not cover the file
 */
export async function flightDelayMerge(payload: unknown, ctx: JobContext): Promise<DelayReport> {
  const options = parseMergePayload(payload);
  const [parquet, airports, partials] = await Promise.all([
    loadFlights3m(),
    loadAirports(),
    fetchPartPartials(createClient({ baseUrl: options.nudgeUrl }), options.parts),
  ]);
  ctx.signal.throwIfAborted();
  const merged = mergeFilePartials(parquet, options.dataset, partials);
  return buildPartialReport(merged, airports, options);
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
