import type { Command } from 'commander';
import { withCliStore } from './open-cli-store.js';
import { printJson, printLine } from './print.js';

/**
 * `nudge migrate`: applies pending migrations (under the store's lock, safe while services run);
 * `nudge migrate status [--json]`: the applied and newest schema versions.
 */
export function migrateCommand(program: Command): void {
  const migrate = program
    .command('migrate')
    .description('apply the pending database migrations')
    .action(async () => {
      await withCliStore(
        async ({ store }) => {
          const applied = await store.migrate();
          const { latest } = await store.schemaState();
          printLine(
            applied.length === 0
              ? `the schema is current (version ${latest}); nothing to apply`
              : `applied ${applied.length === 1 ? 'migration' : 'migrations'} ${applied.join(', ')}; the schema is at version ${latest}`,
          );
        },
        { schema: 'any' },
      );
    });
  migrate
    .command('status')
    .description('show the applied and the newest schema version')
    .option('--json', 'print JSON: {"applied": n, "latest": n, "pending": [versions]}')
    .action(async (options: { json?: boolean }) => {
      await withCliStore(
        async ({ store }) => {
          const { applied, latest } = await store.schemaState();
          const pending = Array.from({ length: Math.max(0, latest - applied) }, (_, i) => applied + i + 1);
          if (options.json) return printJson({ applied, latest, pending });
          if (applied > latest)
            printLine(`schema version ${applied} is newer than this nudge knows (${latest}): upgrade nudge`);
          else if (pending.length === 0) printLine(`schema version ${applied} of ${latest}: current`);
          else
            printLine(
              `schema version ${applied} of ${latest}: ${pending.length} pending (${pending.join(', ')}); run nudge migrate`,
            );
        },
        { schema: 'any' },
      );
    });
}
