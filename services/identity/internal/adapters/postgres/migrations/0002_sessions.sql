-- Sessions you can see (Account -> Security) and devices a user has signed in from.

-- What the user agent said when the session was opened, parsed once (domain.ParseUserAgent)
-- so that the list never parses on read, and how the session was opened.
ALTER TABLE sessions
    ADD COLUMN browser     text NOT NULL DEFAULT '',
    ADD COLUMN os          text NOT NULL DEFAULT '',
    ADD COLUMN device_type text NOT NULL DEFAULT ''
        CHECK (device_type IN ('', 'desktop', 'mobile', 'tablet')),
    ADD COLUMN method      text NOT NULL DEFAULT 'password'
        CHECK (method IN ('password', 'passkey', 'email_code'));

-- The user's live sessions, most recently seen first (ListSessions).
CREATE INDEX sessions_user_seen_idx ON sessions (user_id, last_seen_at DESC) WHERE revoked_at IS NULL;

-- Devices (the BFF's long-lived thumela_device cookie) a user has signed in from. Only the
-- SHA-256 of the cookie's value is stored: a database reader cannot replay it. A sign-in from a
-- device not in here, by a user who has signed in before, e-mails the owner.
CREATE TABLE known_devices (
    user_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_hash   bytea       NOT NULL CHECK (length(device_hash) = 32),
    first_seen_at timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, device_hash)
);
