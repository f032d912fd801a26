-- The sandbox card processor's own records (adapters/sandbox), kept like a real processor keeps
-- them on its side: one row per charge or refund it made, by the idempotency key it was called
-- with. These are the processor's books, not this service's: nothing in app or in this package
-- reads them; ListProcessorRecords reaches them through the processor's interface, as it would
-- reach a real processor's API. A real processor keeps no such table here. No card data: the
-- charge's parameters are kept as the last four digits, the expiry and the amount.
CREATE TABLE sandbox_processor_records (
    kind            text        NOT NULL CHECK (kind IN ('charge', 'refund')),
    idempotency_key text        NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
    -- The processor's id of this charge or refund ("ch_sbx_…", "re_sbx_…"); empty for a
    -- declined charge.
    reference       text        NOT NULL DEFAULT '',
    -- The processor's id of the charge: the charge's own reference, or the charge a refund
    -- refunds.
    charge_id       text        NOT NULL DEFAULT '',
    status          text        NOT NULL CHECK (status IN ('approved', 'declined')),
    decline_code    text        NOT NULL DEFAULT '',
    decline_message text        NOT NULL DEFAULT '',
    amount_cents    bigint      NOT NULL CHECK (amount_cents >= 0),
    -- The call's parameters without the card number (sandbox.signature), to refuse a key
    -- reused with others after a restart.
    signature       text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, idempotency_key)
);
CREATE INDEX sandbox_processor_records_key_idx ON sandbox_processor_records (idempotency_key);
