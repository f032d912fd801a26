-- A reversal (0420) that names an ATM request this service has not seen yet: the switch gave
-- up waiting for a withdrawal (0200) that is still on its way (queued behind a busy link, or on
-- a slow replica) and reversed it. The switch has been told the reversal stands and drops the
-- late approval, so the original must not collect when it does arrive: it is refused as a
-- reversed request (94 at the ATM), and so is every repeat of it. Without this row the late
-- original collected the voucher while no cash came out (the runbook's worst case).
--
-- One row per (bank, retrieval reference), the request's key in collection_requests too, with
-- the STAN the reversal named (a later request under the same reference with another STAN is
-- not the one reversed). Rows older than a voucher's life are pruned by the worker with the
-- unknown voucher numbers' counts.
CREATE TABLE early_reversals (
    bank                text        NOT NULL CHECK (bank IN ('standard_bank', 'absa', 'fnb', 'nedbank', 'capitec')),
    retrieval_reference text        NOT NULL CHECK (retrieval_reference ~ '^[A-Za-z0-9]{1,12}$'),
    stan                text        NOT NULL CHECK (stan ~ '^[0-9]{1,6}$'),
    received_at         timestamptz NOT NULL,
    PRIMARY KEY (bank, retrieval_reference)
);
CREATE INDEX early_reversals_received_idx ON early_reversals (received_at);
