-- The version of the fee schedule (fees.v1.FeeSchedule, published by the fees service to the
-- NATS KV bucket THUMELA_FEE_SCHEDULE) that priced the transfer: the fee itself stays in
-- bank_fee_cents / platform_fee_cents, this says which schedule it came from. 0 when the fees
-- service's Quote priced it (no schedule had arrived yet, and every transfer made before this
-- migration). A constant default: adding the column rewrites nothing.
ALTER TABLE transfers ADD COLUMN fee_schedule_version bigint NOT NULL DEFAULT 0 CHECK (fee_schedule_version >= 0);
