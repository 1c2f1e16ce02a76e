// The handler module the nudge server loads in each worker thread (NUDGE_HANDLERS): its default
// export declares the demo's kinds with their payload schemas (payload-schemas.ts), so the server
// refuses a malformed payload at enqueue and each handler gets its payload typed.
import { defineHandlers, type PayloadsOf } from '@nudge/server/handlers';
import { archiveJson } from './archive-json.js';
import { DEFAULT_DATASET, FLIGHTS_3M } from './dataset-files.js';
import { ALL_ORIGINS, buildDelayReport } from './delay-report.js';
import { dependencyPartials, dependencyReport } from './dependency-partials.js';
import { loadAirports, loadFlights, loadFlights3m } from './flight-data-cache.js';
import { mergeFilePartials } from './merge-file-partials.js';
import { buildPartialReport } from './partial-report.js';
import {
  archivePayload,
  DEFAULT_OUTPUT_DIR,
  mergePayload,
  partPayload,
  reportPayload,
  reviewPayload,
} from './payload-schemas.js';
import { reviewReport } from './review-report.js';
import { rowGroupPartial } from './row-group-partial.js';

const handlers = defineHandlers({
  /**
   * Aggregates a flights dataset's delays for one origin airport or all of them (per airport,
   * month and route; mean, nearest-rank p95, share delayed more than 15 min). Parsed files are
   * cached per thread. Reads only, so a re-run returns the same report.
   * @throws Error when a file cannot be read, or the slice has no flight
   */
  flightDelayReport: {
    schema: reportPayload,
    handler: async (payload, ctx) => {
      const dataset = payload.dataset ?? DEFAULT_DATASET;
      const [flights, airports] = await Promise.all([loadFlights(dataset), loadAirports()]);
      ctx.signal.throwIfAborted();
      return buildDelayReport(flights, airports, {
        dataset,
        origin: payload.origin ?? ALL_ORIGINS,
        topRoutes: payload.topRoutes ?? 5,
      });
    },
  },

  /**
   * Reads one row group of flights-3m.parquet (about 273,000 flights) in its worker thread and
   * returns a mergeable partial: per origin airport and month the flight count, delay sum,
   * flights delayed more than 15 min and a histogram of delays in whole minutes; per route the
   * flight count and delay sum. CPU-bound; reads only, so a re-run returns the same.
   * @throws Error when the file cannot be read or has no such row group
   */
  flightDelayPart: {
    schema: partPayload,
    execution: 'cpu',
    // The decode allocates heavily: a young generation of 128 MB (V8's default is 16 to 64 MB by
    // heap size) cuts the scavenges that slow two parts decoding side by side. This kind gets a
    // Piscina pool of its own with that setting, sharing the cpu class's slots.
    maxYoungGenerationSizeMb: 128,
    handler: async (payload, ctx) => {
      const parquet = await loadFlights3m();
      ctx.signal.throwIfAborted();
      return rowGroupPartial(parquet, payload.rowGroup, payload.dataset ?? FLIGHTS_3M);
    },
  },

  /**
   * Merges the results of the `flightDelayPart` jobs it depends on (`dependsOn`; it runs once
   * they have all finished, and reads their results in `ctx.dependencies`), checks that they
   * cover every row group of the file once, and builds the same report as `flightDelayReport`
   * (exact nearest-rank p95 from the merged histograms). Reads only, so a re-run returns the same
   * report.
   * @throws Error when a part has not succeeded, or the parts do not cover the file
   */
  flightDelayMerge: {
    schema: mergePayload,
    handler: async (payload, ctx) => {
      const dataset = payload.dataset ?? FLIGHTS_3M;
      const partials = dependencyPartials(ctx.dependencies);
      const [parquet, airports] = await Promise.all([loadFlights3m(), loadAirports()]);
      ctx.signal.throwIfAborted();
      const merged = mergeFilePartials(parquet, dataset, partials);
      return buildPartialReport(merged, airports, {
        dataset,
        origin: payload.origin ?? ALL_ORIGINS,
        topRoutes: payload.topRoutes ?? 5,
      });
    },
  },

  /**
   * Writes `payload.report` (when absent: the result of the one job it depends on, such as the
   * flights-3m merge) as gzipped JSON (level 9) to `<outputDir>/<name>.json.gz`, atomically, so a
   * re-run leaves one identical file; returns the absolute path, the JSON size and the gzip size
   * in bytes.
   * @throws Error when the folder cannot be written, or there is no report to write
   */
  archiveReport: {
    schema: archivePayload,
    handler: async (payload, ctx) => {
      ctx.signal.throwIfAborted();
      const report = 'report' in payload ? payload.report : dependencyReport(ctx.dependencies);
      return archiveJson(payload.name, report, payload.outputDir ?? DEFAULT_OUTPUT_DIR);
    },
  },

  /**
   * A durable review of the delays of one slice (see `reviewReport` in review-report.ts): the
   * step `compute`, the sleep `cool-off`, the wait for the signal `approve` that the producer
   * sends inside its own transaction, then the step `archive`. The sleep and the wait end the
   * attempt uncharged and free its slot; each later run starts from the top, and finished steps
   * return their stored results without running again.
   */
  reviewReport: {
    schema: reviewPayload,
    handler: (payload, ctx) => reviewReport(payload, ctx),
  },
});

export default handlers;

/** Each kind's payload as producers send it, from the schemas: types `@nudge/client`'s enqueue. */
export type DemoPayloads = PayloadsOf<typeof handlers>;
