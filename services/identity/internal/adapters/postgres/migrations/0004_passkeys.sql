-- Passkeys (WebAuthn credentials) and step-up. A passkey's public key is not a secret; the
-- private key never leaves the user's authenticator.

CREATE TABLE passkeys (
    id                 uuid        PRIMARY KEY,
    user_id            uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The authenticator's credential id (at most 1023 bytes, WebAuthn §5.8.3): how an
    -- assertion names its passkey. Unique across users, so a credential belongs to one account.
    credential_id      bytea       NOT NULL CHECK (length(credential_id) BETWEEN 1 AND 1023),
    -- COSE_Key, as the authenticator gave it at registration.
    public_key         bytea       NOT NULL CHECK (length(public_key) > 0),
    sign_count         bigint      NOT NULL DEFAULT 0 CHECK (sign_count BETWEEN 0 AND 4294967295),
    -- "internal", "hybrid", "usb", … as the browser reported them; hints for later ceremonies.
    transports         text[]      NOT NULL DEFAULT '{}',
    -- The authenticator model (16 bytes; all zero for most platform passkeys).
    aaguid             bytea       NOT NULL DEFAULT '\x',
    attestation_type   text        NOT NULL DEFAULT '',
    attestation_format text        NOT NULL DEFAULT '',
    -- The raw attestation (client data, authenticator data, statement), kept so that the
    -- passkey can be checked against authenticator metadata later.
    attestation        jsonb       NOT NULL DEFAULT '{}',
    -- WebAuthn authenticator data flags (UP, UV, BE, BS) as last seen: the backup-eligible bit
    -- must not change between ceremonies.
    flags              smallint    NOT NULL DEFAULT 0 CHECK (flags BETWEEN 0 AND 255),
    clone_warning      boolean     NOT NULL DEFAULT false,
    name               text        NOT NULL CHECK (name <> '' AND length(name) <= 64),
    created_at         timestamptz NOT NULL,
    last_used_at       timestamptz
);
CREATE UNIQUE INDEX passkeys_credential_id_key ON passkeys (credential_id);
CREATE INDEX passkeys_user_idx ON passkeys (user_id, created_at);

-- WebAuthn challenges between Begin and Finish: single use (Finish deletes the row it reads),
-- bound to their purpose, to the session that asked (registration, step-up) and to the user
-- where known, and short-lived. session_data is the library's SessionData (the challenge,
-- the credentials allowed, the user verification asked for).
CREATE TABLE webauthn_challenges (
    id           uuid        PRIMARY KEY,
    purpose      text        NOT NULL CHECK (purpose IN ('registration', 'sign_in', 'step_up')),
    session_id   uuid        REFERENCES sessions (id) ON DELETE CASCADE,
    user_id      uuid        REFERENCES users (id) ON DELETE CASCADE,
    session_data jsonb       NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    CHECK ((purpose = 'sign_in') = (session_id IS NULL)),
    CHECK ((purpose = 'sign_in') = (user_id IS NULL))
);
CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at);

-- When the session last proved the user afresh (a passkey, or the password): access tokens
-- issued within the step-up window carry it as "sua".
ALTER TABLE sessions ADD COLUMN stepped_up_at timestamptz;
