// The chaos checker's reading of evidence: which repeated runs a fault explains.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyse, type Evidence, type Fault } from './checks.js';
import type { LedgerAttempt } from './ledger.js';

const KILLED_PID = 100;
const OTHER_PID = 200;

/** Job 1 ran on the killed process, then again on another after a sweep. */
function evidenceWith(fault: Fault, firstStartedAt: number): Evidence {
  const ledger: LedgerAttempt[] = [
    { id: 1, version: 1, attempt: 1, pid: KILLED_PID, startedAt: firstStartedAt },
    { id: 1, version: 2, attempt: 2, pid: OTHER_PID, startedAt: 5_000, endedAt: 5_010, ok: true },
  ];
  return {
    accepted: [1],
    rows: [{ id: 1, status: 'SUCCEEDED', version: 2, result: { version: 2 }, leaseExpired: false }],
    audit: [],
    ledger,
    faults: [fault],
  };
}

describe('chaos checks: duplicates', () => {
  it('an attempt that started before the kill was sent is explained by it', () => {
    const findings = analyse(evidenceWith({ pid: KILLED_PID, at: 1_000, kind: 'kill' }, 999));
    assert.equal(findings.duplicatesUnexplained, 0, findings.details.join('\n'));
    assert.equal(findings.duplicatesExplained, 1);
  });

  it('an attempt that started between the kill being sent and the exit is explained by it', () => {
    const fault: Fault = { pid: KILLED_PID, at: 1_000, kind: 'kill', exitedAt: 1_004 };
    const findings = analyse(evidenceWith(fault, 1_002));
    assert.equal(findings.duplicatesUnexplained, 0, findings.details.join('\n'));
  });

  it('a repeat whose first attempt started after the fault is unexplained, and its changes are named', () => {
    const fault: Fault = { pid: KILLED_PID, at: 1_000, kind: 'kill', exitedAt: 1_004 };
    const evidence = {
      ...evidenceWith(fault, 1_500),
      audit: [
        {
          seq: 1,
          jobId: 1,
          oldStatus: 'RUNNING',
          newStatus: 'PENDING',
          oldVersion: 1,
          newVersion: 1,
          at: 4_000,
        },
      ],
    };
    const findings = analyse(evidence);
    assert.equal(findings.duplicatesUnexplained, 1);
    assert.match(
      findings.details.join('\n'),
      /job 1: ran 2 times .* its changes: RUNNING→PENDING v1→v1 at 4000/,
    );
  });
});
