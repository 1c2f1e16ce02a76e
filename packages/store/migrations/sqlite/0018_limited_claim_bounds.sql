-- Nothing for SQLite yet: its claims run one at a time and never share a queue.
SELECT 1;
