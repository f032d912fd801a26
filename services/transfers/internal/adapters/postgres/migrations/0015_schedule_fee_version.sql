-- The version of the fee schedule that priced a recurring send's fee when the sender set it up
-- (the fee every occurrence charges, the price the sender agreed to): each occurrence's
-- transfer records it in its own fee_schedule_version, as a one-off transfer does. 0 when the
-- fees service's Quote priced it, and for every schedule made before this migration.
ALTER TABLE schedules ADD COLUMN fee_schedule_version bigint NOT NULL DEFAULT 0 CHECK (fee_schedule_version >= 0);
