-- A sign-in asks whether the account has signed in before (SignedInBefore, for the new-sign-in
-- e-mail): any session of the user's, revoked or not. Both indexes on sessions.user_id were
-- partial (live sessions only), so no plan could use them for that question, and every sign-in
-- read the whole sessions table, every user's sessions until the cleanup removes them. The
-- index on user_id now covers every session; the partial one it replaces is also covered, for
-- live sessions, by sessions_user_seen_idx (user_id, last_seen_at) WHERE revoked_at IS NULL.
CREATE INDEX sessions_user_all_idx ON sessions (user_id);
DROP INDEX sessions_user_idx;
