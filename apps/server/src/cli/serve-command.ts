import type { Command } from 'commander';
import { settingsHelp } from './settings-help.js';

/**
 * `nudge serve`: runs the service, exactly as `node apps/server/dist/main.js` does; its `--help`
 * lists the environment variables with their ranges and defaults (see {@link settingsHelp}).
 */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the service (HTTP API and engine), configured from the environment as main.js is')
    .addHelpText('after', () => `\n${settingsHelp()}`)
    .action(async () => {
      // Loaded on demand: the service's modules (HTTP, engine, telemetry) would otherwise
      // lengthen every other command's start.
      const { runService } = await import('../run-service.js');
      await runService();
    });
}
