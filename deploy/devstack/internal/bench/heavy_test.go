package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/pgtest"
)

// The seeded history's voucher numbers may clash with one the service drew at random: the seed
// then tries the next prefix and writes every row. (A stand-in of the transfers table with the
// columns the seed writes and the voucher numbers' unique constraint; the service's own schema
// is internal to it.)
func TestSeedHistoryStepsAroundADrawnVoucherNumber(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background()) //nolint:errcheck // the test's own connection
	if _, err := conn.Exec(t.Context(), `CREATE SCHEMA transfers;
CREATE TABLE transfers.transfers (
    id uuid PRIMARY KEY, user_id uuid, idempotency_key text, request_hash bytea, sender_name text, recipient_name text,
    recipient_phone text, bank text, amount_cents bigint, bank_fee_cents bigint, platform_fee_cents bigint,
    fee_cents bigint, total_cents bigint, fee_waived boolean, status text, payment_method_id text,
    payment_method_name text, payment_method_last_four text, payment_method_token text, location_name text,
    location_type text, charge_id text, attempts int, voucher_number text UNIQUE, voucher_pin_hash text,
    collection_status text, voucher_expires_at timestamptz, collected_at timestamptz,
    recipient_known_confirmed boolean, created_at timestamptz, updated_at timestamptz);
CREATE TABLE transfers.usage_totals (user_id uuid, period text, used_cents bigint);
-- A voucher the service drew that happens to fall in the first prefix's range.
INSERT INTO transfers.transfers (id, voucher_number) VALUES (gen_random_uuid(), '9900000002');`); err != nil {
		t.Fatal(err)
	}
	users := []string{uuid.NewString(), uuid.NewString()}
	if _, err := SeedHistory(t.Context(), dbURL, users, 3); err != nil {
		t.Fatalf("seed: %v", err)
	}
	rows, err := conn.Query(t.Context(), `SELECT voucher_number FROM transfers.transfers WHERE user_id IS NOT NULL ORDER BY voucher_number`)
	if err != nil {
		t.Fatal(err)
	}
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(numbers) != 6 || !strings.HasPrefix(numbers[0], "98") || numbers[0] != "9800000001" {
		t.Fatalf("seeded voucher numbers %v, want six from 9800000001", numbers)
	}
}
