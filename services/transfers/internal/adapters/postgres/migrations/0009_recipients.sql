-- Saved recipients: a completed transfer saves its recipient (name, phone, bank) for the
-- sender's next sends, unless the sender unticked 'Save {name} for next time'. One row per
-- sender and phone: a repeat payment updates the name, bank and last_paid_at of the row.
CREATE TABLE recipients (
    id           uuid        PRIMARY KEY,
    user_id      uuid        NOT NULL,
    name         text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    phone        text        NOT NULL CHECK (phone ~ '^\+27[0-9]{9}$'),
    bank         text        NOT NULL CHECK (bank IN ('standard_bank', 'absa', 'fnb', 'nedbank', 'capitec')),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    last_paid_at timestamptz,                                 -- NULL only if never paid (not written today)
    CONSTRAINT recipients_user_phone_key UNIQUE (user_id, phone)
);

-- The /recipients page and the wizard: a sender's recipients, most recently paid first.
CREATE INDEX recipients_user_paid_idx ON recipients (user_id, last_paid_at DESC NULLS LAST, name);

-- Whether the transfer's recipient is saved once it completes (the sender may untick it).
-- Existing transfers default to true: the sender never had the choice, and saving is the
-- default in the wizard.
ALTER TABLE transfers ADD COLUMN save_recipient boolean NOT NULL DEFAULT true;
