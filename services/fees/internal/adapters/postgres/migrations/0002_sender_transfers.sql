-- The transfers fees has heard of, from the transfers service's status events, for the
-- first-transfer waiver: a user whose transfers have all failed (or who has none) gets the next
-- one free. One row per transfer, holding the latest status along the state machine.
CREATE TABLE sender_transfers (
    transfer_id uuid        PRIMARY KEY,
    user_id     uuid        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sender_transfers_user_idx ON sender_transfers (user_id) WHERE status <> 'failed';
