-- Reconciliation (issue 18, docs/operations.md "reconciliation found a mismatch"): the job that
-- proves the money balances, every few minutes over the transfers changed since its last clean
-- run, and over the whole history on demand.

-- The window's read: transfers by when they last changed, in keyset pages.
CREATE INDEX transfers_updated_idx ON transfers (updated_at, id);

-- The window's read of the credit ledger (movements written since), and each transfer's own
-- credit entries (the spend and the return).
CREATE INDEX credit_entries_created_idx ON credit_entries (created_at);
CREATE INDEX credit_entries_transfer_idx ON credit_entries (transfer_id) WHERE transfer_id IS NOT NULL;

-- One row per run. The next window starts at the last clean run's start (less an overlap for
-- transactions still open then): a run that found mismatches does not move the window, so they
-- are reported again until they are put right.
CREATE TABLE reconciliation_runs (
    id                uuid        PRIMARY KEY,
    full_pass         boolean     NOT NULL,
    window_from       timestamptz,            -- NULL: the whole history
    started_at        timestamptz NOT NULL,
    finished_at       timestamptz NOT NULL,
    transfers_checked bigint      NOT NULL CHECK (transfers_checked >= 0),
    -- [{kind, transfer_ids, detail}]: figures and ids only, no card data, no voucher secrets.
    mismatches        jsonb       NOT NULL DEFAULT '[]',
    clean             boolean     GENERATED ALWAYS AS (jsonb_array_length(mismatches) = 0) STORED
);
CREATE INDEX reconciliation_runs_clean_idx ON reconciliation_runs (started_at DESC) WHERE clean;
