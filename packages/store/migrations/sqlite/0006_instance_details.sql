-- What an operator wants to know about each running instance, besides its kinds: the nudge
-- version it runs, the queues it serves (NUDGE_QUEUES as served, with caps:
-- [{"name": "default"}, {"name": "emails", "cap": 4}]) and its total slots per execution class
-- ({"cpu": 8, "async": 100}). Rows of instances registered before this migration keep defaults
-- until their next registration.
ALTER TABLE nudge_instances ADD COLUMN version TEXT;
ALTER TABLE nudge_instances ADD COLUMN queues TEXT NOT NULL DEFAULT '[{"name":"*"}]' CHECK (json_valid(queues));
ALTER TABLE nudge_instances ADD COLUMN slots TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(slots));
