-- Step-up before money moves: a transfer to a phone the sender has never paid needs a fresh
-- step-up, so every create asks whether the sender has a charged (completed) transfer to the
-- request's phone. This partial index answers that with one probe, however long the sender's
-- history: it holds only completed transfers, keyed by sender and phone (the phone a voucher
-- was last sent to, as ChangeRecipientPhone keeps it in recipient_phone).
CREATE INDEX transfers_paid_phone_idx ON transfers (user_id, recipient_phone) WHERE status = 'completed';
