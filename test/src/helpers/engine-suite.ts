import { afterEach, beforeEach, describe } from 'node:test';
import type { Engine, EngineOptions } from '@nudge/engine';
import type { Dialect, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from './databases.js';
import { createEngine, createScratch, type Scratch } from './engine-fixture.js';

/** What every engine case gets: a migrated store on a fresh database, a scratch folder, engines. */
export interface EngineCase {
  readonly db: TestDatabase;
  readonly store: Store;
  readonly scratch: Scratch;
  /**
   * An engine on the fixture handlers (see {@link createEngine}), stopped after the case; it is
   * not started.
   */
  engine(options?: Partial<EngineOptions>): Promise<Engine>;
}

/**
 * Declares `title` once per dialect; `body` registers cases against an {@link EngineCase} that
 * is fresh for every case. After each case the scratch release file is written (so `hold` jobs
 * end), every engine is stopped, and the database and scratch folder are removed.
 */
export function describeEngine(
  title: string,
  body: (t: EngineCase) => void,
  dialects: readonly Dialect[] = DIALECTS,
): void {
  for (const dialect of dialects) {
    describe(`${title}: ${dialect}`, () => {
      let state: { db: TestDatabase; store: Store; scratch: Scratch } | undefined;
      const engines: Engine[] = [];
      const current = () => state ?? assertInCase();
      const t: EngineCase = {
        get db() {
          return current().db;
        },
        get store() {
          return current().store;
        },
        get scratch() {
          return current().scratch;
        },
        engine: async (options = {}) => {
          const engine = await createEngine(current().store, options);
          engines.push(engine);
          return engine;
        },
      };
      beforeEach(async () => {
        const db = await createMigratedDatabase(dialect);
        state = { db, store: await openStore(db), scratch: createScratch() };
      });
      afterEach(async () => {
        const { db, store, scratch } = current();
        scratch.release();
        await Promise.all(engines.splice(0).map((engine) => engine.stop()));
        await store.close();
        await db.drop();
        scratch.remove();
        state = undefined;
      });
      body(t);
    });
  }
}

function assertInCase(): never {
  throw new Error('the engine case is only available inside a test');
}
