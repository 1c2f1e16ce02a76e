-- What an operator wants to know about each running instance, besides its kinds: the nudge
-- version it runs, the queues it serves (NUDGE_QUEUES as served, with caps:
-- [{"name": "default"}, {"name": "emails", "cap": 4}]) and its total slots per execution class
-- ({"cpu": 8, "async": 100}). Rows of instances registered before this migration keep defaults
-- until their next registration.
ALTER TABLE nudge_instances ADD COLUMN version text;
ALTER TABLE nudge_instances ADD COLUMN queues jsonb NOT NULL DEFAULT '[{"name": "*"}]';
ALTER TABLE nudge_instances ADD COLUMN slots jsonb NOT NULL DEFAULT '{}';
