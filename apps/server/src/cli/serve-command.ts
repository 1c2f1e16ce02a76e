import type { Command } from 'commander';
import { runService } from '../run-service.js';

/** `nudge serve`: runs the service, exactly as `node apps/server/dist/main.js` does. */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the service (HTTP API and engine), configured from the environment as main.js is')
    .action(async () => {
      await runService();
    });
}
