-- Recurring jobs: one row per declared schedule, holding the last tick whose job was enqueued,
-- so a restarted instance knows which ticks it missed and a tick is never enqueued twice, even
-- after retention deleted its job (and with it the tick's idempotency key).
CREATE TABLE nudge_schedules (
  name         text        PRIMARY KEY,
  cron         text        NOT NULL,
  timezone     text        NOT NULL,
  kind         text        NOT NULL,
  last_tick_at timestamptz NOT NULL,
  next_tick_at timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
