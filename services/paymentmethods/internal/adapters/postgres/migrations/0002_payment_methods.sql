-- Saved payment methods and the card vault. No column holds a card number in clear: the
-- number lives only in card_vault.ciphertext, sealed under a per-card data key that is itself
-- sealed (wrapped_key) under a key-encryption key kept in configuration, never here. The CVV
-- is stored nowhere.
CREATE TABLE payment_methods (
    id           uuid        PRIMARY KEY,
    user_id      uuid        NOT NULL,
    type         text        NOT NULL DEFAULT 'card' CHECK (type = 'card'),
    name         text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
    brand        text        NOT NULL CHECK (brand IN ('visa', 'mastercard')),
    last_four    text        NOT NULL CHECK (last_four ~ '^[0-9]{4}$'),
    expiry_month smallint    NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
    expiry_year  smallint    NOT NULL CHECK (expiry_year BETWEEN 2000 AND 2199),
    is_default   boolean     NOT NULL DEFAULT false,
    -- The vault's opaque token ("tok_" + 24 random bytes, base64url).
    token        text        NOT NULL UNIQUE CHECK (token ~ '^tok_[A-Za-z0-9_-]{32}$'),
    -- HMAC-SHA256 of the number under PAYMENTMETHODS_FINGERPRINT_KEY: recognises a card saved
    -- twice by the same user without being reversible from a dump.
    fingerprint  bytea       NOT NULL CHECK (octet_length(fingerprint) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- At most one default per user, whatever the application does.
CREATE UNIQUE INDEX payment_methods_one_default_idx ON payment_methods (user_id) WHERE is_default;
-- The same card once per user.
CREATE UNIQUE INDEX payment_methods_user_fingerprint_idx ON payment_methods (user_id, fingerprint);
-- Listing: the default first, then newest first.
CREATE INDEX payment_methods_user_list_idx ON payment_methods (user_id, is_default DESC, created_at DESC, id DESC);

-- The vault: one envelope per token. Deleting a method deletes its envelope (the number is
-- gone for good); a method that was ever used cannot be deleted (payment_method_usage).
CREATE TABLE card_vault (
    token       text        PRIMARY KEY REFERENCES payment_methods (token) ON DELETE CASCADE,
    kek_id      text        NOT NULL,   -- which key-encryption key wrapped the data key
    wrapped_key bytea       NOT NULL,   -- the data key, AES-256-GCM under that KEK
    ciphertext  bytea       NOT NULL,   -- the number, AES-256-GCM under the data key
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX card_vault_kek_idx ON card_vault (kek_id);

-- Why a method cannot be deleted: a charge was made with it (written with the charge), or a
-- transfer refers to it (from the transfers service's status events). RESTRICT makes the
-- database refuse a delete that raced past the application's check.
CREATE TABLE payment_method_usage (
    payment_method_id uuid        NOT NULL REFERENCES payment_methods (id) ON DELETE RESTRICT,
    source            text        NOT NULL CHECK (source IN ('charge', 'transfer')),
    reference         text        NOT NULL,  -- the charge's idempotency key, or the transfer id
    recorded_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (payment_method_id, source, reference)
);

-- Charges, recorded as pending before the processor is called and completed with its answer.
-- The idempotency key (the transfer id) makes a repeated charge return the first result.
CREATE TABLE charges (
    id                  uuid        PRIMARY KEY,  -- also the processor's idempotency key
    idempotency_key     text        NOT NULL UNIQUE CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
    user_id             uuid        NOT NULL,
    payment_method_id   uuid        NOT NULL REFERENCES payment_methods (id) ON DELETE RESTRICT,
    amount_cents        bigint      NOT NULL CHECK (amount_cents > 0),
    description         text        NOT NULL DEFAULT '',
    status              text        NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
    decline_code        text        NOT NULL DEFAULT '',
    decline_message     text        NOT NULL DEFAULT '',
    processor_reference text        NOT NULL DEFAULT '',
    -- While pending: until when the request that holds the charge may call the processor; a
    -- retry takes over after that.
    lease_until         timestamptz,
    attempts            integer     NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    completed_at        timestamptz,
    CHECK ((status = 'pending') = (completed_at IS NULL))
);
CREATE INDEX charges_payment_method_idx ON charges (payment_method_id);

CREATE TABLE refunds (
    id                  uuid        PRIMARY KEY,  -- also the processor's idempotency key
    idempotency_key     text        NOT NULL UNIQUE CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
    charge_id           uuid        NOT NULL REFERENCES charges (id),
    amount_cents        bigint      NOT NULL CHECK (amount_cents > 0),
    reason              text        NOT NULL DEFAULT '',
    status              text        NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
    failure_code        text        NOT NULL DEFAULT '',
    failure_message     text        NOT NULL DEFAULT '',
    processor_reference text        NOT NULL DEFAULT '',
    lease_until         timestamptz,
    attempts            integer     NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    completed_at        timestamptz,
    CHECK ((status = 'pending') = (completed_at IS NULL))
);
CREATE INDEX refunds_charge_idx ON refunds (charge_id);
