-- Transfer credit and referrals (issue 15). Credit is money the service owes a user, spent on
-- their transfers. It is kept in a double-entry ledger: accounts with balances, and entries
-- that each belong to a movement of exactly two entries summing to zero, so that credit is
-- never created or lost without a counterpart. credit.go's move is the one writer: it inserts
-- both entries and updates both balances in the caller's transaction.

-- Accounts: 'user:<uuid>' (a user's credit, never below zero), 'system:referral_promotions'
-- (the source of every welcome and reward: its balance is minus what promotions have paid out)
-- and 'system:credit_spent' (credit spent on transfers, from which a failed, cancelled or
-- expired transfer's credit is returned).
CREATE TABLE credit_accounts (
    account       text        PRIMARY KEY CHECK (account ~ '^(user:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|system:[a-z_]+)$'),
    balance_cents bigint      NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL,
    -- The rule the whole ledger exists for: a user never spends credit they do not have, even
    -- under concurrent spends (each UPDATE re-checks it on the row it locked).
    CONSTRAINT credit_accounts_user_not_negative CHECK (account NOT LIKE 'user:%' OR balance_cents >= 0)
);

CREATE TABLE credit_entries (
    id           bigserial   PRIMARY KEY,
    movement_id  uuid        NOT NULL,
    account      text        NOT NULL REFERENCES credit_accounts (account),
    amount_cents bigint      NOT NULL CHECK (amount_cents <> 0),
    kind         text        NOT NULL CHECK (kind IN ('referral_welcome', 'referral_reward', 'spent', 'returned')),
    transfer_id  uuid,                                     -- the transfer spent on or returned from
    created_at   timestamptz NOT NULL,
    -- A movement's id is derived from what it is for (a friend's welcome, a transfer's spend), so
    -- a redelivered event or a retried transaction finds it there and moves nothing twice.
    CONSTRAINT credit_entries_movement_account_key UNIQUE (movement_id, account)
);

-- GetCredit: a user's latest movements, and the sums of their rewards.
CREATE INDEX credit_entries_account_idx ON credit_entries (account, created_at DESC, id DESC);

-- The ledger's invariant, checked by the database at commit whatever code wrote the entries:
-- every movement is exactly two entries, on two accounts, summing to zero.
CREATE FUNCTION credit_entries_check_movement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n   integer;
    sum bigint;
BEGIN
    SELECT count(*), coalesce(sum(amount_cents), 0) INTO n, sum FROM credit_entries WHERE movement_id = NEW.movement_id;
    IF n <> 2 OR sum <> 0 THEN
        RAISE EXCEPTION 'credit movement % has % entries summing to %', NEW.movement_id, n, sum
            USING ERRCODE = 'check_violation', CONSTRAINT = 'credit_entries_balanced';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER credit_entries_balanced AFTER INSERT ON credit_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION credit_entries_check_movement();

-- Entries are history: never changed or deleted (a mistake is corrected by another movement).
CREATE FUNCTION credit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credit entries are append-only'
        USING ERRCODE = 'check_violation', CONSTRAINT = 'credit_entries_append_only';
END
$$;

CREATE TRIGGER credit_entries_append_only BEFORE UPDATE OR DELETE ON credit_entries
    FOR EACH ROW EXECUTE FUNCTION credit_entries_append_only();

-- A user's referral code: "THU-" and 8 Crockford base32 characters of the FNV-1a 64 hash of
-- the user id (domain.ReferralCode, the web's referral-code.ts). Inserted when the user first
-- asks for their credit (the /refer-friend page), which is where the code is shown; the row is
-- how a code typed at sign-up finds its owner.
CREATE TABLE referral_codes (
    user_id    uuid        PRIMARY KEY,
    code       text        NOT NULL CONSTRAINT referral_codes_code_key UNIQUE CHECK (code ~ '^THU-[0-9A-HJKMNP-TV-Z]{8}$'),
    created_at timestamptz NOT NULL
);

-- A friend who verified their address after signing up with a referrer's code: one row per
-- friend (a friend is referred once), written with the friend's welcome credit. rewarded_at is
-- set by the transaction that completes the friend's first transfer, which pays the referrer.
CREATE TABLE referrals (
    friend_id   uuid        PRIMARY KEY,
    referrer_id uuid        NOT NULL,
    code        text        NOT NULL,
    joined_at   timestamptz NOT NULL,
    rewarded_at timestamptz,
    CONSTRAINT referrals_not_self CHECK (friend_id <> referrer_id)
);

CREATE INDEX referrals_referrer_idx ON referrals (referrer_id);

-- What a transfer spent of the sender's credit, and what its card is charged: the rest of the
-- total. Existing transfers spent none: their card paid the total. card_charge_cents is set by
-- a trigger from the other two on every write, so the two always add up to the total whatever
-- code writes the row (a replica of the previous release during a rolling deploy writes no
-- credit, and its rows are right too). Not a generated column: rows copied whole
-- (INSERT … SELECT t.*) must still be accepted.
ALTER TABLE transfers
    ADD COLUMN credit_applied_cents bigint NOT NULL DEFAULT 0,
    ADD CONSTRAINT transfers_credit_applied_range CHECK (credit_applied_cents BETWEEN 0 AND total_cents),
    ADD COLUMN card_charge_cents bigint;

CREATE FUNCTION transfers_card_charge() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.card_charge_cents := NEW.total_cents - NEW.credit_applied_cents;
    RETURN NEW;
END
$$;

CREATE TRIGGER transfers_card_charge BEFORE INSERT OR UPDATE ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_card_charge();

UPDATE transfers SET card_charge_cents = total_cents;

ALTER TABLE transfers
    ALTER COLUMN card_charge_cents SET NOT NULL,
    ADD CONSTRAINT transfers_card_charge_sum CHECK (card_charge_cents = total_cents - credit_applied_cents);
