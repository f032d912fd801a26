-- The history page's "of N" from running counts (issue 16). The page's statement counted the
-- sender's whole history (SELECT count(*) … WHERE user_id = $1) on every read, so a read cost
-- more the more a sender had sent. transfer_counts keeps, per sender, how many transfers are in
-- each status: the unfiltered page sums a sender's four rows at most, the status filter reads
-- one, whatever the history. A search or a statement's window still counts what it matches.
--
-- As with usage_totals (0008), a trigger keeps the counts in the transaction that inserts or
-- changes the row, so no path (the create, the worker, a replica of the previous release during
-- a rolling deploy) can forget them.
CREATE TABLE transfer_counts (
    user_id uuid   NOT NULL,
    status  text   NOT NULL,
    -- No CHECK (n >= 0): the upsert below would test the -1 of a status left before finding
    -- its row. The trigger is the only writer, and a test holds the counts to count(*).
    n       bigint NOT NULL,
    PRIMARY KEY (user_id, status)
);

-- Writes to transfers wait until the backfill and the trigger are in place, so that no
-- transfer is missed or counted twice in between.
LOCK TABLE transfers IN SHARE ROW EXCLUSIVE MODE;

-- transfers_track_counts moves a transfer's count from its old status to its new one. Both rows
-- are written by one statement in status order, so two transactions changing one sender's
-- transfers (the worker completing one while a create inserts another) take the rows in the
-- same order and queue rather than deadlock.
CREATE FUNCTION transfers_track_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.status = OLD.status THEN
        RETURN NULL;
    END IF;
    INSERT INTO transfer_counts AS c (user_id, status, n)
    SELECT d.user_id, d.status, d.delta
    FROM (VALUES
        (CASE WHEN TG_OP <> 'INSERT' THEN OLD.user_id END, CASE WHEN TG_OP <> 'INSERT' THEN OLD.status END, -1::bigint),
        (CASE WHEN TG_OP <> 'DELETE' THEN NEW.user_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.status END, 1::bigint)
    ) AS d (user_id, status, delta)
    WHERE d.status IS NOT NULL
    ORDER BY d.status
    ON CONFLICT (user_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END
$$;

CREATE TRIGGER transfers_track_counts AFTER INSERT OR DELETE OR UPDATE OF status ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_track_counts();

-- Backfill: the counts of the transfers that exist.
INSERT INTO transfer_counts (user_id, status, n)
SELECT user_id, status, count(*) FROM transfers GROUP BY user_id, status;
