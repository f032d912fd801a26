-- One profile per identity user: the names shown across the app and an optional South African
-- mobile number, stored in E.164 (+27 and nine digits) or NULL.
CREATE TABLE profiles (
    user_id      uuid        PRIMARY KEY,
    first_name   text        NOT NULL CHECK (char_length(first_name) <= 100),
    last_name    text        NOT NULL CHECK (char_length(last_name) <= 100),
    phone_number text        NULL CHECK (phone_number ~ '^\+27[0-9]{9}$'),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
