import { NudgeError } from '@nudge/core';
import { createStore, type Store } from '@nudge/store';
import { loadDatabaseConfig, type DatabaseConfig } from '../config.js';
import { CliError } from './cli-error.js';
import { describeFailure } from './describe-failure.js';

/** A store the CLI opened, with the configuration it was opened from. */
export interface CliStore {
  readonly store: Store;
  readonly config: DatabaseConfig;
}

/** What a command needs of the schema before it runs. */
export type SchemaNeed = 'current' | 'any';

/**
 * Runs `work` on a store opened from the database configuration (`loadDatabaseConfig`: no
 * `NUDGE_HANDLERS` needed), and closes the store afterwards, whatever happens.
 *
 * With `schema: 'current'` (the default) it first checks the database answers and is migrated to
 * exactly this code's schema.
 *
 * Every failure comes out as a {@link CliError} whose one-line message says what to fix: a
 * database that cannot be reached (`cannot reach the database at …; check DATABASE_URL`), one
 * not migrated (`run nudge migrate first`), one migrated by a newer nudge (`SCHEMA_TOO_NEW`),
 * a bad variable (`INVALID_CONFIG: …`), or whatever `work` threw.
 *
 * @throws CliError as above
 */
export async function withCliStore<T>(
  work: (cli: CliStore) => Promise<T>,
  options: { schema?: SchemaNeed } = {},
): Promise<T> {
  let config: DatabaseConfig;
  try {
    config = loadDatabaseConfig();
  } catch (error) {
    throw new CliError(describeFailure(error));
  }
  let store: Store;
  try {
    store = createStore(config.databaseUrl, {
      queryTimeoutMs: config.dbTimeoutMs,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      preparedStatements: config.pgPreparedStatements,
    });
  } catch (error) {
    throw new CliError(describeFailure(error, config.databaseUrl));
  }
  try {
    if ((options.schema ?? 'current') === 'current') {
      const { applied, latest } = await store.schemaState();
      if (applied > latest) {
        throw new NudgeError(
          'SCHEMA_TOO_NEW',
          `the database has schema version ${applied}, this nudge knows up to ${latest}: upgrade nudge`,
        );
      }
      if (applied < latest) {
        throw new CliError(
          `the database has schema version ${applied} of ${latest}: run nudge migrate first`,
        );
      }
    }
    return await work({ store, config });
  } catch (error) {
    throw new CliError(describeFailure(error, config.databaseUrl));
  } finally {
    await store.close().catch(() => undefined);
  }
}
