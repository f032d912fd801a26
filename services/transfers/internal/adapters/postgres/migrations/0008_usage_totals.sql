-- Limits from running totals (issue 15). Every create used to sum the sender's whole calendar
-- year of transfers under the sender's lock, so a create grew slower with the sender's history.
-- usage_totals keeps, per sender, the amounts counted against the limits in each Johannesburg
-- day, month and year: a create reads three rows by primary key, whatever the history.
--
-- A transfer counts while it has not failed and its voucher was not cancelled or expired (the
-- money went back): the same rule as before (postgres.go `counts`). Totals are kept by a trigger
-- on transfers, in the transaction that inserts or changes the row: the create, the worker's
-- failure, the sender's cancel, the expiry, and any future path (a bulk freeze, a scheduler)
-- cannot forget them, and neither can a replica still running the previous release during a
-- rolling deploy. A give-back goes to the periods the transfer was counted in: those of its
-- created_at, not of the moment it failed or was cancelled.
--
-- period_start is the Johannesburg calendar date the period starts on (a day: that day; a
-- month: its 1st; a year: 1 January). Old rows are harmless (a create reads only the current
-- periods); they are a few rows per sender per active day.
CREATE TABLE usage_totals (
    user_id      uuid   NOT NULL,
    period       text   NOT NULL CHECK (period IN ('day', 'month', 'year')),
    period_start date   NOT NULL,
    -- Never negative: a give-back without its counted amount would be a bug, and is refused.
    used_cents   bigint NOT NULL CHECK (used_cents >= 0),
    PRIMARY KEY (user_id, period, period_start)
);

-- Writes to transfers wait until the backfill and the trigger are in place, so that no
-- transfer is missed or counted twice in between.
LOCK TABLE transfers IN SHARE ROW EXCLUSIVE MODE;

CREATE FUNCTION transfers_usage_counts(status text, collection_status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE AS $$
    SELECT status <> 'failed' AND (collection_status IS NULL OR collection_status NOT IN ('cancelled', 'expired'))
$$;

-- transfers_track_usage adds a counted transfer's amount to its day, month and year, and gives
-- it back when the transfer stops counting (amount_cents never changes). Rows are written year,
-- month, day: every transaction that touches a sender's totals takes the year row first, so two
-- of them (an expiry batch and a cancel) queue on it instead of deadlocking. A give-back
-- updates the rows its transfer was counted in (an upsert would check the negative delta
-- against used_cents >= 0 before finding the row); a row missing is a total lost, and refused.
CREATE FUNCTION transfers_track_usage() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    local  timestamp;
    starts date[];
    kinds  text[] := ARRAY['year', 'month', 'day'];
    i      int;
    found_ int;
BEGIN
    local := NEW.created_at AT TIME ZONE 'Africa/Johannesburg';
    starts := ARRAY[date_trunc('year', local)::date, date_trunc('month', local)::date, local::date];
    IF TG_OP = 'INSERT' OR NOT transfers_usage_counts(OLD.status, OLD.collection_status) THEN
        IF NOT transfers_usage_counts(NEW.status, NEW.collection_status) THEN
            RETURN NULL;
        END IF;
        INSERT INTO usage_totals AS u (user_id, period, period_start, used_cents)
        SELECT NEW.user_id, kinds[g.n], starts[g.n], NEW.amount_cents FROM generate_series(1, 3) AS g (n) ORDER BY g.n
        ON CONFLICT (user_id, period, period_start) DO UPDATE SET used_cents = u.used_cents + EXCLUDED.used_cents;
        RETURN NULL;
    END IF;
    IF transfers_usage_counts(NEW.status, NEW.collection_status) THEN
        RETURN NULL; -- counted before and still counted
    END IF;
    FOR i IN 1..3 LOOP
        UPDATE usage_totals SET used_cents = used_cents - OLD.amount_cents
            WHERE user_id = NEW.user_id AND period = kinds[i] AND period_start = starts[i];
        GET DIAGNOSTICS found_ = ROW_COUNT;
        IF found_ <> 1 THEN
            RAISE EXCEPTION 'usage total (%, %, %) missing for transfer %', NEW.user_id, kinds[i], starts[i], NEW.id
                USING ERRCODE = 'check_violation', CONSTRAINT = 'usage_totals_used_cents_check';
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER transfers_track_usage AFTER INSERT OR UPDATE OF status, collection_status ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_track_usage();

-- Backfill: the totals of the transfers that exist, so that existing senders' limits stay right.
INSERT INTO usage_totals (user_id, period, period_start, used_cents)
SELECT user_id, period, period_start, sum(amount_cents)
FROM (
    SELECT user_id, amount_cents, v.period, v.period_start
    FROM transfers
    CROSS JOIN LATERAL (VALUES
        ('year', date_trunc('year', created_at AT TIME ZONE 'Africa/Johannesburg')::date),
        ('month', date_trunc('month', created_at AT TIME ZONE 'Africa/Johannesburg')::date),
        ('day', (created_at AT TIME ZONE 'Africa/Johannesburg')::date)) AS v (period, period_start)
    WHERE transfers_usage_counts(status, collection_status)
) AS counted
GROUP BY user_id, period, period_start;

-- The dashboard's and the wizard's "money waiting in uncollected vouchers": one probe of the
-- sender's vouchers awaiting collection, however long their history.
CREATE INDEX transfers_uncollected_idx ON transfers (user_id) INCLUDE (amount_cents)
    WHERE collection_status = 'awaiting_collection';
