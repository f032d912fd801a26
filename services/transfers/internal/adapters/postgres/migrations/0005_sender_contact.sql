-- The sender's first name and e-mail address, from the access token of the request that
-- created the transfer, so that the worker (which acts without the sender's token) can ask the
-- notifications service for the sender's e-mails: the receipt, cash collected, the refund.
-- Neither is part of the request body, so the idempotency key's request hash is unchanged.
-- Empty for transfers made before this migration: they get no e-mail. Adding columns with a
-- constant default rewrites nothing.
ALTER TABLE transfers
    ADD COLUMN sender_first_name text NOT NULL DEFAULT '' CHECK (char_length(sender_first_name) <= 100),
    ADD COLUMN sender_email      text NOT NULL DEFAULT '' CHECK (char_length(sender_email) <= 254);
