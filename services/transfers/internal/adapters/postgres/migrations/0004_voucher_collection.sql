-- Cash collection at the ATM (CollectVoucher). The voucher number needs no new index: its
-- UNIQUE constraint (transfers_voucher_number_key) already is one, and the collection looks a
-- voucher up by it.
--
-- voucher_failed_attempts counts the wrong PINs (or phone numbers) typed for the voucher since
-- it was issued or since its last lock passed; the fifth locks it until voucher_locked_until
-- (24 hours). collected_atm_id records the ATM that dispensed the cash. Adding columns with a
-- constant default or none rewrites nothing.
ALTER TABLE transfers
    ADD COLUMN voucher_failed_attempts integer NOT NULL DEFAULT 0 CHECK (voucher_failed_attempts >= 0),
    ADD COLUMN voucher_locked_until    timestamptz,
    ADD COLUMN collected_atm_id        text CHECK (char_length(collected_atm_id) BETWEEN 1 AND 64),
    ADD CONSTRAINT transfers_collected_atm_only_collected
        CHECK (collected_atm_id IS NULL OR collection_status = 'collected');
