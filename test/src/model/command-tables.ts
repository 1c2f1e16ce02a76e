// The model test's command tables: which commands a run draws, and how often. `all` weighs the
// job lifecycle, flow control and durable steps alike; `durable` draws mostly handlers, steps,
// sleeps, waits and signals, with the claims, failures, retries, cancels, sweeps, promotions and
// clock moves that meet them, so that long durable flows (a wait resolved, a dependency retried
// under a waiting job) come up in a few runs.
import type fc from 'fast-check';
import {
  claimCommand,
  completeCommand,
  expireLeaseCommand,
  failCommand,
  promoteCommand,
  releaseOrBeatCommand,
  sweepCommand,
} from './attempt-commands.js';
import { enqueueAndClaimCommand } from './self-claim-command.js';
import { enqueueCommand } from './enqueue-command.js';
import { cancelCommand, cancelManyCommand, retryCommand, retryManyCommand } from './job-control-commands.js';
import type { ModelCommand } from './model-command.js';
import { advanceClockCommand, pauseCommand, pruneCommand, setLimitsCommand } from './queue-commands.js';
import { signalCommand, signalWaitingCommand } from './signal-commands.js';
import { handlerCommand, sleepCommand, stepCommand, waitCommand } from './step-commands.js';

/** Each command arbitrary, with how often it should be drawn. */
type CommandTable = ReadonlyArray<readonly [fc.Arbitrary<ModelCommand>, number]>;

/** The tables a run may draw from. */
export type CommandFocus = 'all' | 'durable';

const ALL: CommandTable = [
  [enqueueCommand, 6],
  [enqueueAndClaimCommand, 1],
  [claimCommand, 5],
  [completeCommand, 4],
  [failCommand, 3],
  [expireLeaseCommand, 1],
  [releaseOrBeatCommand, 1],
  [sweepCommand, 1],
  [promoteCommand, 2],
  [cancelCommand, 1],
  [cancelManyCommand, 1],
  [retryCommand, 2],
  [retryManyCommand, 1],
  [setLimitsCommand, 2],
  [pauseCommand, 1],
  [pruneCommand, 1],
  [advanceClockCommand, 2],
  [handlerCommand, 5],
  [stepCommand, 2],
  [sleepCommand, 1],
  [waitCommand, 1],
  [signalCommand, 2],
  [signalWaitingCommand, 2],
];

const DURABLE: CommandTable = [
  [enqueueCommand, 5],
  [enqueueAndClaimCommand, 1],
  [claimCommand, 6],
  [completeCommand, 2],
  [failCommand, 3],
  [expireLeaseCommand, 1],
  [releaseOrBeatCommand, 1],
  [sweepCommand, 1],
  [promoteCommand, 3],
  [cancelCommand, 2],
  [retryCommand, 3],
  [retryManyCommand, 1],
  [pruneCommand, 1],
  [advanceClockCommand, 3],
  [handlerCommand, 9],
  [stepCommand, 2],
  [sleepCommand, 1],
  [waitCommand, 2],
  [signalCommand, 2],
  [signalWaitingCommand, 3],
];

/** The command tables by focus. */
export const COMMAND_TABLES: Readonly<Record<CommandFocus, CommandTable>> = { all: ALL, durable: DURABLE };
