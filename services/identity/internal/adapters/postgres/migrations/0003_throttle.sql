-- The sign-in and code throttles back off per (account, address) pair, per address and per
-- account (app.ThrottlePolicy) instead of locking an account. The pair is the tight key, read
-- on every attempt: it gets an index of its own.
CREATE INDEX sign_in_attempts_pair_idx ON sign_in_attempts (kind, account, client_address, attempted_at DESC);
