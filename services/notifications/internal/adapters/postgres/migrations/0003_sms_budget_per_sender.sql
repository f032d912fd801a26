-- The SMS budget is each sender's per number (SMSSentTo): counting every sender's SMS together
-- let a stranger use a number's day up with vouchers they sent and cancelled for a full refund,
-- and cut the number off from every other sender's vouchers. The count now reads one sender's
-- SMS to one number in the last day.
CREATE INDEX deliveries_sms_recipient_user_idx ON deliveries (recipient, user_id, created_at) WHERE channel = 'sms';
DROP INDEX deliveries_sms_recipient_idx;
