-- Recurring sends ("Send R500 to Thandi every Friday"). A schedule is a standing order; the
-- scheduler (app/scheduler.go) makes one ordinary transfer per occurrence date, with the
-- idempotency key 'schedule:<id>:<YYYY-MM-DD>', so that the transfers' own unique key is what
-- guarantees an occurrence is made at most once, whoever makes it and however often.
CREATE TABLE schedules (
    id                        uuid        PRIMARY KEY,
    user_id                   uuid        NOT NULL,
    idempotency_key           text        NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 128),
    request_hash              bytea       NOT NULL,
    recipient_name            text        NOT NULL CHECK (char_length(recipient_name) BETWEEN 1 AND 100),
    recipient_phone           text        NOT NULL CHECK (recipient_phone ~ '^\+27[0-9]{9}$'),
    bank                      text        NOT NULL CHECK (bank IN ('standard_bank', 'absa', 'fnb', 'nedbank', 'capitec')),
    amount_cents              bigint      NOT NULL CHECK (amount_cents > 0),
    -- The card as it was at creation, with the vault's token: the scheduler has no access token
    -- to ask paymentmethods with. A card deleted since is refused at the charge.
    payment_method_id         text        NOT NULL,
    payment_method_name       text        NOT NULL,
    payment_method_last_four  text        NOT NULL,
    payment_method_token      text        NOT NULL,
    -- The fee quoted at creation (fees quotes only for a user's token); the first-transfer
    -- waiver is still decided per occurrence.
    bank_fee_cents            bigint      NOT NULL CHECK (bank_fee_cents >= 0),
    platform_fee_cents        bigint      NOT NULL CHECK (platform_fee_cents >= 0),
    frequency                 text        NOT NULL CHECK (frequency IN ('weekly', 'monthly')),
    start_date                date        NOT NULL,
    end_date                  date        CHECK (end_date >= start_date),
    state                     text        NOT NULL CHECK (state IN ('active', 'paused', 'ended')),
    next_date                 date        CHECK ((state = 'ended') = (next_date IS NULL)),
    -- The sender as their access token named them at creation (the scheduler has none).
    sender_first_name         text        NOT NULL DEFAULT '',
    sender_last_name          text        NOT NULL DEFAULT '',
    sender_email              text        NOT NULL DEFAULT '',
    recipient_known_confirmed boolean     NOT NULL,
    created_at                timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL,
    CONSTRAINT schedules_user_key UNIQUE (user_id, idempotency_key)
);

-- /recipients lists a sender's schedules.
CREATE INDEX schedules_user_idx ON schedules (user_id, created_at DESC);
-- The scheduler's claim: active schedules whose next date has come.
CREATE INDEX schedules_due_idx ON schedules (next_date) WHERE state = 'active';

-- Each date of a schedule as it went: the transfer made for it, or why none could be made.
-- The primary key is the "once" of an occurrence's record (ON CONFLICT DO NOTHING).
CREATE TABLE schedule_occurrences (
    schedule_id    uuid        NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    date           date        NOT NULL,
    transfer_id    uuid,
    failure_reason text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (schedule_id, date),
    CHECK ((transfer_id IS NULL) <> (failure_reason = ''))
);

-- A transfer the scheduler made names its schedule and date. No foreign key: deleting a
-- schedule does not touch the transfers it made, which are the sender's history.
ALTER TABLE transfers ADD COLUMN schedule_id uuid;
ALTER TABLE transfers ADD COLUMN occurrence_date date;
ALTER TABLE transfers ADD CONSTRAINT transfers_occurrence_check CHECK ((schedule_id IS NULL) = (occurrence_date IS NULL));
