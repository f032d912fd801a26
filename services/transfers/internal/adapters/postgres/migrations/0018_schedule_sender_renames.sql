-- A scheduled send's occurrences run without the sender's token, so the schedule keeps the
-- sender's names; identity's UserRenamed now renames them (RenameScheduleSender). The time of the
-- profile change applied last keeps a late, older rename from undoing a newer one.
ALTER TABLE schedules ADD COLUMN sender_renamed_at timestamptz;
