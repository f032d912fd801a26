-- Step-ups for a purpose other than moving money (adding a passkey): a fresh proof of the user
-- (passkey or password) that allows one such action of the session that made it, within the
-- step-up window. One row per session and purpose (a new step-up replaces it); the action
-- deletes it (single use); it goes with its session.
CREATE TABLE step_up_proofs (
    session_id uuid        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    purpose    text        NOT NULL CHECK (purpose IN ('add_passkey')),
    proved_at  timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (session_id, purpose)
);
