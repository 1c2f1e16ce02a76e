-- Recurring jobs: one row per declared schedule, holding the last tick whose job was enqueued,
-- so a restarted instance knows which ticks it missed and a tick is never enqueued twice, even
-- after retention deleted its job (and with it the tick's idempotency key).
CREATE TABLE nudge_schedules (
  name         TEXT NOT NULL PRIMARY KEY,
  cron         TEXT NOT NULL,
  timezone     TEXT NOT NULL,
  kind         TEXT NOT NULL,
  last_tick_at TEXT NOT NULL,
  next_tick_at TEXT,
  updated_at   TEXT NOT NULL
);
