-- The transfer row's three writes timed inside one PostgreSQL backend (docs/benchmarks.md,
-- "Session 24 measured the first of those redesigns"). Run it against a copy of a bench run's
-- transfers schema, never a live database: it inserts 1,500 transfers per variant into 32 of
-- the copy's senders and disables triggers between variants.
--
--   pg_dump -n transfers <bench database> | psql <scratch database>
--   psql <scratch database> -f docs/bench/row-writes.sql
--
-- Each statement is committed on its own (a procedure with COMMIT in its loop), as the service
-- commits them; the figures are the statement's own time, without the client, the protocol or
-- the commit.
SET search_path = transfers;
SET synchronous_commit = off; -- commits are not timed; do not wait for the disk between them
CREATE TABLE IF NOT EXISTS public.res (v text, i float8, p float8, c float8);
CREATE OR REPLACE PROCEDURE public.lifecycle3(label text, n int) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz; i int; a float8 := 0; b float8 := 0; c float8 := 0; tid uuid; users uuid[];
  tmpl transfers%ROWTYPE;
BEGIN
  SELECT * INTO tmpl FROM transfers LIMIT 1;
  SELECT array_agg(DISTINCT user_id) INTO users FROM (SELECT user_id FROM transfers GROUP BY user_id LIMIT 32) u;
  FOR i IN 1..n LOOP
    t0 := clock_timestamp();
    INSERT INTO transfers (id, user_id, idempotency_key, request_hash, sender_name, recipient_name, recipient_phone, bank, amount_cents, bank_fee_cents, platform_fee_cents, fee_cents, total_cents, fee_waived, status, payment_method_id, payment_method_name, payment_method_last_four, payment_method_token, location_name, location_type, created_at, updated_at, trace_context, sender_first_name, sender_email, save_recipient, credit_applied_cents, fee_schedule_version)
    VALUES (gen_random_uuid(), users[1 + i % array_length(users,1)], md5(random()::text), tmpl.request_hash, tmpl.sender_name, tmpl.recipient_name, tmpl.recipient_phone, tmpl.bank, tmpl.amount_cents, tmpl.bank_fee_cents, tmpl.platform_fee_cents, tmpl.fee_cents, tmpl.total_cents, tmpl.fee_waived, 'pending', tmpl.payment_method_id, tmpl.payment_method_name, tmpl.payment_method_last_four, tmpl.payment_method_token, tmpl.location_name, tmpl.location_type, now(), now(), tmpl.trace_context, tmpl.sender_first_name, tmpl.sender_email, tmpl.save_recipient, 0, tmpl.fee_schedule_version) RETURNING id INTO tid;
    a := a + extract(epoch from clock_timestamp() - t0);
    COMMIT;
    t0 := clock_timestamp();
    UPDATE transfers SET status = 'processing', attempts = 1, lease_until = now() + interval '1 minute', updated_at = clock_timestamp() WHERE id = tid AND status = 'pending';
    b := b + extract(epoch from clock_timestamp() - t0);
    COMMIT;
    t0 := clock_timestamp();
    UPDATE transfers SET status = 'completed', charge_id = 'ch_x', lease_until = NULL, voucher_number = lpad((random()*1e10)::bigint::text, 10, '0'), voucher_pin_hash = 'h', collection_status = 'awaiting_collection', voucher_expires_at = now() + interval '7 days', updated_at = clock_timestamp() WHERE id = tid AND status = 'processing';
    c := c + extract(epoch from clock_timestamp() - t0);
    COMMIT;
  END LOOP;
  INSERT INTO public.res VALUES (label, a*1000/n, b*1000/n, c*1000/n);
  COMMIT;
END $$;
TRUNCATE public.res;
CALL public.lifecycle3('all', 1500);
ALTER TABLE transfers DISABLE TRIGGER transfers_track_counts;
CALL public.lifecycle3('no counts', 1500);
ALTER TABLE transfers ENABLE TRIGGER transfers_track_counts;
ALTER TABLE transfers DISABLE TRIGGER transfers_track_usage;
CALL public.lifecycle3('no usage', 1500);
ALTER TABLE transfers ENABLE TRIGGER transfers_track_usage;
ALTER TABLE transfers DISABLE TRIGGER transfers_guard_transitions;
CALL public.lifecycle3('no guard', 1500);
ALTER TABLE transfers DISABLE TRIGGER USER; ALTER TABLE transfers ENABLE TRIGGER transfers_card_charge;
CALL public.lifecycle3('only card_charge', 1500);
ALTER TABLE transfers ENABLE TRIGGER USER;
CALL public.lifecycle3('all again', 1500);
SELECT v, round(i::numeric,3) ins, round(p::numeric,3) proc, round(c::numeric,3) comp, round((i+p+c)::numeric,3) total FROM public.res;
-- The table's two index rows came from the same loop run inside one transaction (no COMMIT in
-- the loop), rolled back, with the card-charge trigger alone enabled and the indexes dropped
-- in that transaction first: DROP INDEX transfers_charge_due_idx, transfers_expiry_due_idx,
-- transfers_reminder_due_idx, transfers_uncollected_idx, transfers_paid_phone_idx (the partial
-- ones), then transfers_updated_idx, transfers_user_created_idx and the two unique constraints.
