// The model test's property: on one database of a dialect, each run empties it, opens three store
// instances, runs a generated list of commands against them and the reference model, then drains.
import fc from 'fast-check';
import type { Dialect } from '@nudge/store';
import { createTestDatabase, openStore, rawQuery, type TestDatabase } from '../helpers/index.js';
import { drain } from './drain.js';
import { openWorld } from './model-world.js';
import type { KnownFault } from './model-state.js';
import { openEmptier, type DatabaseEmptier } from './model-database.js';
import { openDurableReader, type DurableReader } from './durable-reader.js';
import { COMMAND_TABLES, type CommandFocus } from './command-tables.js';

/** How a model check runs. */
export interface ModelCheckOptions {
  readonly dialect: Dialect;
  /** Runs (generated command lists) to try. */
  readonly runs: number;
  /** Most commands per run. @defaultValue 40 */
  readonly maxCommands?: number;
  /** Replays: fast-check's seed, and `path` of the counterexample to replay at once. */
  readonly seed?: number;
  readonly path?: string;
  /** The counterexample's `replayPath` (fast-check prints it beside the commands). */
  readonly replayPath?: string;
  /** Avoid the combinations that trigger the store's known faults (see `ModelOptions`). */
  readonly avoid?: ReadonlySet<KnownFault>;
  /** Which commands are drawn most (see command-tables.ts). @defaultValue 'all' */
  readonly focus?: CommandFocus;
}

/** What a passing check did. */
export interface ModelCheckResult {
  readonly runs: number;
  readonly seed: number;
  readonly elapsedMs: number;
}

/**
 * Runs the model test on a fresh database of `options.dialect` (dropped afterwards).
 * @throws Error whose message is fast-check's report (seed, path, the shrunk command list, the
 *   violation with the run's trace) and the command that replays it
 */
export async function checkModel(options: ModelCheckOptions): Promise<ModelCheckResult> {
  const db = await createTestDatabase(options.dialect);
  let emptier: DatabaseEmptier | undefined;
  let reader: DurableReader | undefined;
  try {
    await (await openStore(db)).close();
    await unsyncedCommits(db);
    const opened = await openEmptier(db);
    emptier = opened;
    const durable = await openDurableReader(db);
    reader = durable;
    const table = COMMAND_TABLES[options.focus ?? 'all'];
    const arbs = table.flatMap(([arb, weight]) => Array.from({ length: weight }, () => arb));
    const property = fc.asyncProperty(
      fc.commands(arbs, {
        maxCommands: options.maxCommands ?? 40,
        size: 'max',
        ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath }),
      }),
      async (commands) => {
        const world = await openWorld(db, opened, durable, {
          dialect: options.dialect,
          avoid: options.avoid ?? new Set(),
        });
        try {
          await fc.asyncModelRun(() => ({ model: world.model, real: world }), commands);
          await drain(world);
        } finally {
          await world.close();
        }
      },
    );
    const started = performance.now();
    const details = await fc.check(property, {
      numRuns: options.runs,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    if (details.failed) {
      const avoided = [...(options.avoid ?? [])];
      const replayPath = /replayPath="([^"]*)"/.exec(fc.stringify(details.counterexample))?.[1];
      const replay = [
        `pnpm test:model --dialect ${options.dialect}${options.focus ? ` --focus ${options.focus}` : ''} --seed=${details.seed}`,
        `--path ${details.counterexamplePath ?? ''}`,
        replayPath === undefined ? '' : `--replay-path '${replayPath}'`,
        avoided.length > 0 ? `(with NUDGE_MODEL_SKIP_KNOWN=${avoided.join(',')})` : '',
      ].join(' ');
      const error =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance);
      throw new Error(
        `model test failed on ${options.dialect}\n${fc.defaultReportMessage(details)}\n${error}\nreplay: ${replay}`,
      );
    }
    return { runs: details.numRuns, seed: details.seed, elapsedMs: performance.now() - started };
  } finally {
    await emptier?.close();
    await reader?.close();
    await db.drop();
  }
}

/**
 * PostgreSQL: commits of the test's database return before their WAL is flushed (for connections
 * opened from now on). A run commits a few hundred times; waiting for each flush would take most
 * of its time, and a crash of the server (the only thing the flush guards against) is not modelled.
 */
async function unsyncedCommits(db: TestDatabase): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const name = new URL(db.url).pathname.slice(1);
  await rawQuery(db, `ALTER DATABASE "${name}" SET synchronous_commit = off`);
}
