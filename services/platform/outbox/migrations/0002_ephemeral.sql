-- Ephemeral rows (notification requests) are deleted by the relay once JetStream has them,
-- instead of being kept as published until the prune.
ALTER TABLE outbox ADD COLUMN ephemeral boolean NOT NULL DEFAULT false;
