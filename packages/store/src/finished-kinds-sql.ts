import { TERMINAL_STATUSES } from '@nudge/core';

/**
 * Each terminal status and kind that finished jobs have, sorted, in one statement that both
 * dialects run as written (no parameters). A loose index scan per terminal status: each step
 * finds the next kind above the last one through the (status, kind, finished_at) index, so the
 * cost grows with the number of pairs, not rows; see {@link Store.finishedKinds}.
 */
export const FINISHED_KINDS_SQL = `
WITH RECURSIVE statuses(status) AS (
  VALUES ${TERMINAL_STATUSES.map((status) => `('${status}')`).join(', ')}
), pairs(status, kind) AS (
  SELECT s.status, (SELECT min(j.kind) FROM nudge_jobs AS j
                     WHERE j.status = s.status AND j.finished_at IS NOT NULL)
    FROM statuses AS s
  UNION ALL
  SELECT p.status, (SELECT min(j.kind) FROM nudge_jobs AS j
                     WHERE j.status = p.status AND j.finished_at IS NOT NULL AND j.kind > p.kind)
    FROM pairs AS p WHERE p.kind IS NOT NULL
)
SELECT status, kind FROM pairs WHERE kind IS NOT NULL ORDER BY status, kind`;
