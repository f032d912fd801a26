-- Transfers, their idempotency keys and their cash vouchers: one row per transfer.
CREATE TABLE transfers (
    id                       uuid        PRIMARY KEY,          -- random (v4): the reference is its first 8 characters
    user_id                  uuid        NOT NULL,             -- the sender (access token subject)
    idempotency_key          text        NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 128),
    request_hash             bytea       NOT NULL,             -- SHA-256 of the canonical request
    sender_name              text        NOT NULL DEFAULT '',
    recipient_name           text        NOT NULL CHECK (char_length(recipient_name) BETWEEN 1 AND 100),
    recipient_phone          text        NOT NULL CHECK (recipient_phone ~ '^\+27[0-9]{9}$'),
    bank                     text        NOT NULL CHECK (bank IN ('standard_bank', 'absa', 'fnb', 'nedbank', 'capitec')),
    amount_cents             bigint      NOT NULL CHECK (amount_cents > 0),
    bank_fee_cents           bigint      NOT NULL CHECK (bank_fee_cents >= 0),
    platform_fee_cents       bigint      NOT NULL CHECK (platform_fee_cents >= 0),
    fee_cents                bigint      NOT NULL CHECK (fee_cents >= 0),   -- charged: 0 when waived
    total_cents              bigint      NOT NULL CHECK (total_cents = amount_cents + fee_cents),
    fee_waived               boolean     NOT NULL,
    status                   text        NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    failure_reason           text        NOT NULL DEFAULT '',
    payment_method_id        text        NOT NULL,
    payment_method_name      text        NOT NULL DEFAULT '',
    payment_method_last_four text        NOT NULL DEFAULT '',
    payment_method_token     text        NOT NULL,             -- the vault's opaque token; never returned
    location_name            text        NOT NULL,
    location_type            text        NOT NULL CHECK (location_type IN ('param', 'default')),
    charge_id                text        NOT NULL DEFAULT '',
    attempts                 integer     NOT NULL DEFAULT 0,
    lease_until              timestamptz,                      -- a claimed charge or refund is a worker's until then
    voucher_number           text        CONSTRAINT transfers_voucher_number_key UNIQUE CHECK (voucher_number ~ '^[0-9]{10}$'),
    voucher_pin_hash         text,                             -- argon2id (PHC string)
    collection_status        text        CHECK (collection_status IN ('awaiting_collection', 'collected', 'cancelled', 'expired')),
    voucher_expires_at       timestamptz,
    collected_at             timestamptz,
    refund_status            text        CHECK (refund_status IN ('pending', 'refunded')),
    refund_id                text        NOT NULL DEFAULT '',
    refund_reason            text        NOT NULL DEFAULT '',
    created_at               timestamptz NOT NULL,
    updated_at               timestamptz NOT NULL,
    CONSTRAINT transfers_idempotency_key UNIQUE (user_id, idempotency_key),
    CONSTRAINT transfers_voucher_complete CHECK ((collection_status IS NULL) = (voucher_number IS NULL)),
    CONSTRAINT transfers_voucher_only_completed CHECK (collection_status IS NULL OR status = 'completed')
);

-- History and limits: a sender's transfers newest first, and their sums per period.
CREATE INDEX transfers_user_created_idx ON transfers (user_id, created_at DESC, id DESC);
-- The worker's queues: each index holds only the rows with work to do, so it stays small.
CREATE INDEX transfers_charge_due_idx ON transfers (created_at) WHERE status IN ('pending', 'processing');
CREATE INDEX transfers_refund_due_idx ON transfers (lease_until) WHERE refund_status = 'pending';
CREATE INDEX transfers_expiry_due_idx ON transfers (voucher_expires_at) WHERE collection_status = 'awaiting_collection';

-- The state machine, once more in the database: a status never goes backwards and a voucher's
-- collection status never leaves an end, whatever code runs the UPDATE.
CREATE FUNCTION transfers_guard_transitions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
        (OLD.status = 'pending' AND NEW.status = 'processing') OR
        (OLD.status = 'processing' AND NEW.status IN ('completed', 'failed'))) THEN
        RAISE EXCEPTION 'transfer % cannot go from % to %', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'transfers_status_transition';
    END IF;
    IF NEW.collection_status IS DISTINCT FROM OLD.collection_status AND NOT (
        (OLD.collection_status IS NULL AND NEW.collection_status = 'awaiting_collection') OR
        (OLD.collection_status = 'awaiting_collection' AND NEW.collection_status IN ('collected', 'cancelled', 'expired'))) THEN
        RAISE EXCEPTION 'voucher of transfer % cannot go from % to %', OLD.id, OLD.collection_status, NEW.collection_status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'transfers_collection_transition';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER transfers_guard_transitions BEFORE UPDATE ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_guard_transitions();
