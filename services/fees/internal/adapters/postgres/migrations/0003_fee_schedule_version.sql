-- The fee schedule's version: one row, bumped by a trigger in the same transaction as any change
-- to bank_fees (statement level, so a change of five rows is one version). The fees service polls
-- this row (a primary-key read every few seconds) and publishes the whole schedule with its
-- version to the NATS KV bucket THUMELA_FEE_SCHEDULE when the version moves; the transfers
-- service prices transfers from it and records the version on each transfer.
--
-- Polling rather than LISTEN/NOTIFY: a notification sent while the listener is disconnected is
-- lost (so a poll would be needed anyway), LISTEN pins a connection outside the pool, and the
-- row survives restarts, so every fees replica converges on the same version whatever it missed.
CREATE TABLE fee_schedule_version (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    version    bigint      NOT NULL CHECK (version > 0),
    changed_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO fee_schedule_version (version) VALUES (1);

-- search_path is pinned to the schema's at creation, whoever's statement fires the trigger.
CREATE FUNCTION bump_fee_schedule_version() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE fee_schedule_version SET version = version + 1, changed_at = now();
    RETURN NULL;
END;
$$;

CREATE TRIGGER bank_fees_bump_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON bank_fees
    FOR EACH STATEMENT EXECUTE FUNCTION bump_fee_schedule_version();
