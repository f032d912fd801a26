-- How many SMS a number had in the last day (SMSSentTo): the per-recipient budget that keeps
-- Thumela from being used to flood someone's phone with voucher SMS.
CREATE INDEX deliveries_sms_recipient_idx ON deliveries (recipient, created_at) WHERE channel = 'sms';
