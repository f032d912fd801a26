-- A reversal must repeat what its request said (its ATM and amount, and the voucher number,
-- checked on the transfer): one that overtakes its request is remembered with them, so that a
-- reversal forged from guessed references cannot refuse another ATM's request in advance. Rows
-- from before carry neither and match on the references alone.
ALTER TABLE early_reversals
    ADD COLUMN atm_id       text   CHECK (char_length(atm_id) BETWEEN 1 AND 64),
    ADD COLUMN amount_cents bigint CHECK (amount_cents > 0);
