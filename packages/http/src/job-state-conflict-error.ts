import { NudgeError, type JobStatus } from '@nudge/core';

/**
 * `JOB_STATE_CONFLICT` (409): the job's status does not allow the command. `status` (also in the
 * error body) is the job's status now.
 */
export class JobStateConflictError extends NudgeError {
  readonly status: JobStatus;

  constructor(id: number, command: 'cancel' | 'retry', status: JobStatus) {
    const why =
      command === 'cancel'
        ? `it is ${status}: only a WAITING, SCHEDULED, PENDING or RUNNING job can be cancelled`
        : `it is ${status}: only a FAILED or CANCELLED job can be retried`;
    super(
      'JOB_STATE_CONFLICT',
      `job ${id} cannot be ${command === 'cancel' ? 'cancelled' : 'retried'}: ${why}`,
    );
    this.status = status;
  }
}
