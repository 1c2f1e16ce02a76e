-- A rate-limited queue's log of starts moves from a JSON array in its nudge_queues row to rows of
-- their own. Each claim read the array three times and wrote it back whole; reading an element's
-- time and count parses it again, so a log of 1,000 entries (a queue claimed about 1,000 times per
-- window, as a fast drain does) took about 0.45 ms per read against 0.06 ms for a sum over these
-- rows through their primary key. A row holds the starts of the claims whose time rounds up to the
-- same hundredth of the interval (t, epoch ms, database clock): a start counts up to 1 % of the
-- interval longer, never shorter, and the log keeps at most about 100 rows per queue. Rows that
-- left the window are deleted by the next claim that logs starts in the queue.
CREATE TABLE nudge_rate_starts (
  queue TEXT    NOT NULL,
  t     INTEGER NOT NULL,
  n     INTEGER NOT NULL CHECK (n >= 1),
  PRIMARY KEY (queue, t)
) STRICT, WITHOUT ROWID;

INSERT INTO nudge_rate_starts (queue, t, n)
SELECT q.name, CAST(json_extract(e.value, '$[0]') AS INTEGER), sum(json_extract(e.value, '$[1]'))
  FROM nudge_queues AS q, json_each(q.rate_starts) AS e
 GROUP BY 1, 2;

ALTER TABLE nudge_queues DROP COLUMN rate_starts;
