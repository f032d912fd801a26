-- The schema for floor-completed-transfer.pgbench (docs/benchmarks.md, "The floor: a completed
-- transfer's durable writes alone"): the bench's baseline tables (deploy/devstack/internal/bench,
-- pgbenchSchema) plus a voucher on the transfer row, a charge and a delivery table. Run it in a
-- throw-away database:
--   createdb -h 127.0.0.1 -U postgres floor_bench && psql -h 127.0.0.1 -U postgres -d floor_bench -f floor-schema.sql
CREATE TABLE bench_transfers (id uuid PRIMARY KEY, user_id integer NOT NULL, idempotency_key text NOT NULL, recipient_name text NOT NULL, amount_cents bigint NOT NULL, fee_cents bigint NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, voucher_number text, voucher_pin_hash text);
CREATE INDEX bench_transfers_user_created_idx ON bench_transfers (user_id, created_at DESC);
CREATE TABLE bench_outbox (id uuid PRIMARY KEY, subject text NOT NULL, payload bytea NOT NULL, created_at timestamptz NOT NULL, published_at timestamptz);
CREATE TABLE bench_usage (user_id integer PRIMARY KEY, used_cents bigint NOT NULL);
INSERT INTO bench_usage SELECT g, 0 FROM generate_series(1, 64) g;
CREATE TABLE bench_charges (id uuid PRIMARY KEY, idempotency_key text UNIQUE NOT NULL, user_id integer NOT NULL, amount_cents bigint NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE bench_deliveries (id uuid PRIMARY KEY, request_id text UNIQUE NOT NULL, user_id integer NOT NULL, channel text NOT NULL, recipient text NOT NULL, status text NOT NULL, body bytea NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
