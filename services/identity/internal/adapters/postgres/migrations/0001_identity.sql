-- Identity's tables. Secrets are never stored in clear: passwords as argon2id PHC strings,
-- one-time codes as salted SHA-256, session tokens as SHA-256.

CREATE TABLE users (
    id                  uuid        PRIMARY KEY,
    email               text        NOT NULL CHECK (email = lower(email) AND email <> ''),
    password_hash       text        NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    first_name          text        NOT NULL,
    last_name           text        NOT NULL,
    email_verified_at   timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    password_changed_at timestamptz NOT NULL
);
-- E-mails are stored normalised (lower case); the index on lower(email) holds even for a
-- row written around the application.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- At most one code per user and purpose: a new code replaces the old one, which is how
-- "a new code kills the old one" holds without a race.
CREATE TABLE one_time_codes (
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text        NOT NULL CHECK (purpose IN ('email_verification', 'password_reset')),
    code_hash  bytea       NOT NULL,
    salt       bytea       NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    PRIMARY KEY (user_id, purpose)
);

CREATE TABLE sessions (
    id                  uuid        PRIMARY KEY,
    user_id             uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash          bytea       NOT NULL UNIQUE,
    created_at          timestamptz NOT NULL,
    last_seen_at        timestamptz NOT NULL,
    idle_expires_at     timestamptz NOT NULL,
    absolute_expires_at timestamptz NOT NULL,
    revoked_at          timestamptz,
    client_address      text        NOT NULL DEFAULT '',
    user_agent          text        NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;
CREATE INDEX sessions_absolute_expires_idx ON sessions (absolute_expires_at);

-- Failed sign-ins and wrong codes, counted per account (the e-mail as typed, known or not)
-- and per client address within a sliding window. Shared by every replica.
CREATE TABLE sign_in_attempts (
    id             bigserial   PRIMARY KEY,
    kind           text        NOT NULL CHECK (kind IN ('password', 'code')),
    account        text        NOT NULL,
    client_address text        NOT NULL DEFAULT '',
    attempted_at   timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_account_idx ON sign_in_attempts (kind, account, attempted_at DESC);
CREATE INDEX sign_in_attempts_address_idx ON sign_in_attempts (kind, client_address, attempted_at DESC)
    WHERE client_address <> '';
