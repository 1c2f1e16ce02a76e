import { cancelCommand } from './cancel-command.js';
import { enqueueCommand } from './enqueue-command.js';
import { listCommand } from './list-command.js';
import { logsCommand } from './logs-command.js';
import { migrateCommand } from './migrate-command.js';
import { pruneCommand } from './prune-command.js';
import { queuesCommand } from './queues-command.js';
import type { RegisterCommand } from './register-command.js';
import { retryCommand } from './retry-command.js';
import { schedulesCommand } from './schedules-command.js';
import { serveCommand } from './serve-command.js';
import { signalCommand } from './signal-command.js';
import { statsCommand } from './stats-command.js';
import { statusCommand } from './status-command.js';
import { sweepCommand } from './sweep-command.js';

/** Every `nudge` command, in `--help` order. A new command is a new file and one line here. */
export const COMMANDS: readonly RegisterCommand[] = [
  serveCommand,
  migrateCommand,
  enqueueCommand,
  statusCommand,
  logsCommand,
  listCommand,
  statsCommand,
  retryCommand,
  cancelCommand,
  signalCommand,
  sweepCommand,
  pruneCommand,
  schedulesCommand,
  queuesCommand,
];
