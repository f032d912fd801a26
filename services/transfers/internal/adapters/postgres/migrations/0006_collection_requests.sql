-- Cash in the recipient's hand (issue 13): ATM requests that are idempotent and reversible, the
-- collecting ATM's location, a PIN only the sender knows, re-issued vouchers and the recipient's
-- reminder. Adding nullable columns, or columns with a constant default, rewrites nothing.
--
-- collected_location: where the collecting ATM is, as its network names it ("FNB ATM Sandton
--   City"); collected_rrn: the retrieval reference of the ATM request that collected the voucher
--   (at the transfer's bank), which a reversal names. Both only while collected, like
--   collected_at and collected_atm_id.
-- sender_pin_hash: the MAC of the PIN the sender chose (same form as voucher_pin_hash, bound to
--   the transfer), NULL when the PIN is drawn at random. Never the PIN.
-- voucher_resends, recipient_phone_changes: the sender's re-issues of the voucher (each at most
--   3, which the service enforces); their sum numbers each re-issue's SMS and event.
-- reminder_sent_at: when the recipient's reminder SMS was asked for; once per voucher.
ALTER TABLE transfers
    ADD COLUMN collected_location      text CHECK (char_length(collected_location) BETWEEN 1 AND 64),
    ADD COLUMN collected_rrn           text CHECK (collected_rrn ~ '^[A-Za-z0-9]{1,12}$'),
    ADD COLUMN sender_pin_hash         text,
    ADD COLUMN voucher_resends         integer NOT NULL DEFAULT 0 CHECK (voucher_resends >= 0),
    ADD COLUMN recipient_phone_changes integer NOT NULL DEFAULT 0 CHECK (recipient_phone_changes >= 0),
    ADD COLUMN reminder_sent_at        timestamptz,
    ADD CONSTRAINT transfers_collection_only_collected CHECK (
        (collected_at IS NULL AND collected_location IS NULL AND collected_rrn IS NULL)
        OR collection_status = 'collected');

-- The reminder's queue: vouchers awaiting collection and not yet reminded, by expiry (the worker
-- scans those expiring within the next 24 hours).
CREATE INDEX transfers_reminder_due_idx ON transfers (voucher_expires_at)
    WHERE collection_status = 'awaiting_collection' AND reminder_sent_at IS NULL;

-- One row per ATM request (CollectVoucher), named by its (bank, retrieval reference): the
-- request's outcome, so that a repeat (an ATM switch's retry) gets the same answer and changes
-- nothing, and so that a reversal can name the request that collected a voucher. It is also the
-- record of who tried which voucher where and when (the runbook's "the ATM gave no cash"). No
-- credential is kept: request_digest is a SHA-256 of the STAN, voucher number, amount and ATM
-- id (to tell a retry from another request reusing the reference; voucher numbers are stored in
-- clear in transfers anyway, and a number alone collects nothing), never of the PIN or phone.
CREATE TABLE collection_requests (
    bank                text        NOT NULL CHECK (bank IN ('standard_bank', 'absa', 'fnb', 'nedbank', 'capitec')),
    retrieval_reference text        NOT NULL CHECK (retrieval_reference ~ '^[A-Za-z0-9]{1,12}$'),
    stan                text        NOT NULL CHECK (stan ~ '^[0-9]{1,6}$'),
    request_digest      bytea       NOT NULL,
    transfer_id         uuid        REFERENCES transfers (id),   -- the voucher the number named; NULL if none
    outcome             text        NOT NULL CHECK (outcome IN ('approved', 'refused')),
    reason              text        NOT NULL DEFAULT '' CHECK (reason IN ('', 'wrong_credentials', 'locked', 'expired',
                            'cancelled', 'already_collected', 'wrong_bank', 'wrong_amount', 'invalid_voucher')),
    attempts_left       integer     NOT NULL DEFAULT 0 CHECK (attempts_left >= 0),  -- wrong_credentials
    locked_until        timestamptz,                                                 -- locked
    amount_cents        bigint      NOT NULL CHECK (amount_cents > 0),              -- as typed at the ATM
    atm_id              text        NOT NULL CHECK (char_length(atm_id) BETWEEN 1 AND 64),
    atm_location        text        NOT NULL DEFAULT '' CHECK (char_length(atm_location) <= 64),
    created_at          timestamptz NOT NULL,                   -- for an approval: the voucher's collected_at
    reversed_at         timestamptz,                            -- the ATM reversed the approval
    PRIMARY KEY (bank, retrieval_reference),
    CONSTRAINT collection_requests_reason CHECK ((outcome = 'approved') = (reason = '')),
    CONSTRAINT collection_requests_approved_has_transfer CHECK (outcome = 'refused' OR transfer_id IS NOT NULL),
    CONSTRAINT collection_requests_reversed_approved CHECK (reversed_at IS NULL OR outcome = 'approved')
);
CREATE INDEX collection_requests_transfer_idx ON collection_requests (transfer_id, created_at)
    WHERE transfer_id IS NOT NULL;

-- The wrong-attempt counts of well-formed voucher numbers that no voucher has, counted and
-- locked exactly like a voucher's (voucher_failed_attempts, voucher_locked_until), so that the
-- attempts left and the lock answer a guesser alike whether a number exists or not. Keyed by a
-- SHA-256 of the number; rows untouched for longer than a voucher's life are pruned by the worker.
CREATE TABLE unknown_voucher_numbers (
    number_digest   bytea       PRIMARY KEY,
    failed_attempts integer     NOT NULL CHECK (failed_attempts >= 0),
    locked_until    timestamptz,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX unknown_voucher_numbers_updated_idx ON unknown_voucher_numbers (updated_at);

-- The state machine in the database gains exactly one way back, and a guard on the voucher's
-- number:
-- * collected → awaiting_collection only as the reversal of the ATM request that collected it:
--   that request (bank, collected_rrn) must be recorded as approved and reversed (the reversal
--   marks it in the same transaction, first), and the collection's time, ATM, location and
--   request are cleared while the number and expiry stay;
-- * the voucher's number is set when it is issued, and changes only while it awaits collection
--   (a re-issue), never once collected, cancelled or expired.
-- The function resolves collection_requests in the schema it was created in, whatever the
-- session's search_path. Each allowed step is wrapped in coalesce(…, false): a comparison with a
-- NULL must refuse the step, never let it through (IF NULL does not raise).
CREATE OR REPLACE FUNCTION transfers_guard_transitions() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT coalesce(
        (OLD.status = 'pending' AND NEW.status = 'processing') OR
        (OLD.status = 'processing' AND NEW.status IN ('completed', 'failed')), false) THEN
        RAISE EXCEPTION 'transfer % cannot go from % to %', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'transfers_status_transition';
    END IF;
    IF NEW.collection_status IS DISTINCT FROM OLD.collection_status AND NOT coalesce(
        (OLD.collection_status IS NULL AND NEW.collection_status = 'awaiting_collection') OR
        (OLD.collection_status = 'awaiting_collection' AND NEW.collection_status IN ('collected', 'cancelled', 'expired')) OR
        (OLD.collection_status = 'collected' AND NEW.collection_status = 'awaiting_collection'
            AND NEW.voucher_number = OLD.voucher_number
            AND NEW.voucher_expires_at IS NOT DISTINCT FROM OLD.voucher_expires_at
            AND NEW.collected_at IS NULL AND NEW.collected_atm_id IS NULL
            AND NEW.collected_location IS NULL AND NEW.collected_rrn IS NULL
            AND EXISTS (SELECT 1 FROM collection_requests r
                        WHERE r.bank = OLD.bank AND r.retrieval_reference = OLD.collected_rrn
                          AND r.transfer_id = OLD.id AND r.outcome = 'approved' AND r.reversed_at IS NOT NULL)), false) THEN
        RAISE EXCEPTION 'voucher of transfer % cannot go from % to %', OLD.id, OLD.collection_status, NEW.collection_status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'transfers_collection_transition';
    END IF;
    IF NEW.voucher_number IS DISTINCT FROM OLD.voucher_number AND NOT coalesce(
        (OLD.voucher_number IS NULL AND NEW.collection_status = 'awaiting_collection') OR
        (NEW.voucher_number IS NOT NULL AND OLD.collection_status = 'awaiting_collection'
            AND NEW.collection_status = 'awaiting_collection'), false) THEN
        RAISE EXCEPTION 'the voucher number of transfer % cannot change while it is %', OLD.id, OLD.collection_status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'transfers_voucher_number_transition';
    END IF;
    RETURN NEW;
END
$$;
