-- A row is written when fees first hears of a transfer and again only if it fails: the waiver
-- asks whether a transfer that did not fail exists, so processing and completed changed
-- nothing it reads and were two writes per transfer. status is therefore the status first
-- heard of, or failed.
COMMENT ON COLUMN sender_transfers.status IS
    'The status fees first heard of for the transfer, or failed once it failed (the waiver reads only failed or not).';
