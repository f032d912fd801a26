-- The transactional outbox: events written in the same transaction as the state change they
-- describe, published to JetStream by the relay after commit. Created in the service's schema
-- (search_path), so every service has its own.
CREATE TABLE outbox (
    seq          bigserial   PRIMARY KEY,
    id           uuid        NOT NULL UNIQUE,  -- Nats-Msg-Id: JetStream drops a re-publish
    subject      text        NOT NULL,
    payload      bytea       NOT NULL,         -- a marshalled proto message
    headers      jsonb       NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz                   -- NULL until JetStream acknowledged it
);

-- The relay only ever reads unpublished rows in seq order; this index stays as small as the
-- backlog (usually empty) however large the table grows between prunes.
CREATE INDEX outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL;
