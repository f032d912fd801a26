-- A user's names follow their profile: profiles owns them once the account exists, and identity
-- takes each change from profiles' ProfileUpdated events (RenameUser), so that access tokens,
-- and the SMS and e-mails built from them, carry the names the user last saved. The time of the
-- change applied last keeps a late redelivery of an older change from undoing a newer one.
ALTER TABLE users ADD COLUMN names_changed_at timestamptz;
