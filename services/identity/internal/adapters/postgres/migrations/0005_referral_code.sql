-- The referral code a user typed at sign-up (normalised, "THU-" and 8 Crockford base32
-- characters), kept until their address is verified, when UserVerified carries it to the
-- transfers service, which owns the codes and pays the credit. '' when none was typed.
ALTER TABLE users ADD COLUMN referral_code text NOT NULL DEFAULT ''
    CHECK (referral_code = '' OR referral_code ~ '^THU-[0-9A-HJKMNP-TV-Z]{8}$');
