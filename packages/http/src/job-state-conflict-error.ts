import { NudgeError, type JobStatus } from '@nudge/core';

const DONE = { cancel: 'cancelled', retry: 'retried', signal: 'sent a signal' } as const;

const ONLY = {
  cancel: 'only a WAITING, SCHEDULED, PENDING or RUNNING job can be cancelled',
  retry: 'only a FAILED or CANCELLED job can be retried',
  signal: 'a signal reaches only a job that has not finished',
} as const;

/**
 * `JOB_STATE_CONFLICT` (409): the job's status does not allow the command. `status` (also in the
 * error body) is the job's status now.
 */
export class JobStateConflictError extends NudgeError {
  readonly status: JobStatus;

  constructor(id: number, command: 'cancel' | 'retry' | 'signal', status: JobStatus) {
    super('JOB_STATE_CONFLICT', `job ${id} cannot be ${DONE[command]}: it is ${status}: ${ONLY[command]}`);
    this.status = status;
  }
}
