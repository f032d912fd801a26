package grpcport_test

import (
	"testing"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
)

// The processor's own records of a charge, a declined charge and a refund, by the transfers
// service's idempotency keys; a key it never saw is absent.
func TestListProcessorRecords(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ok := e.addCard(t, u, "Card", sandbox.CardVisa, false)
	bad := e.addCard(t, u, "Declines", sandbox.CardDeclinedOnCharge, false)
	transfers := e.asService(t, "transfers")

	chargeKey, declinedKey, refundKey := uuid.NewString(), uuid.NewString(), "refund-"+uuid.NewString()
	ch, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: ok.GetToken(), AmountCents: 52_500, IdempotencyKey: chargeKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: bad.GetToken(), AmountCents: 1_000, IdempotencyKey: declinedKey}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 52_500, IdempotencyKey: refundKey}); err != nil {
		t.Fatal(err)
	}

	res, err := e.client.ListProcessorRecords(transfers, &paymentmethodsv1.ListProcessorRecordsRequest{
		IdempotencyKeys: []string{chargeKey, declinedKey, refundKey, "never-seen"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*paymentmethodsv1.ProcessorRecord{}
	for _, r := range res.GetRecords() {
		got[r.GetIdempotencyKey()] = r
	}
	if len(res.GetRecords()) != 3 || got["never-seen"] != nil {
		t.Fatalf("records = %v", res.GetRecords())
	}
	c, d, r := got[chargeKey], got[declinedKey], got[refundKey]
	if c.GetKind() != paymentmethodsv1.ProcessorRecordKind_PROCESSOR_RECORD_KIND_CHARGE || c.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED ||
		c.GetAmountCents() != 52_500 || c.GetChargeId() == "" || c.GetCreatedAt() == nil {
		t.Errorf("charge = %v", c)
	}
	if d.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED || d.GetAmountCents() != 1_000 {
		t.Errorf("declined charge = %v", d)
	}
	if r.GetKind() != paymentmethodsv1.ProcessorRecordKind_PROCESSOR_RECORD_KIND_REFUND || r.GetChargeId() != c.GetChargeId() ||
		r.GetAmountCents() != 52_500 || r.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED {
		t.Errorf("refund = %v (charge %v)", r, c)
	}

	// The records are the processor's, not this service's tables: a change to charges is not
	// seen, a change to the processor's books is.
	if _, err := e.pool.Exec(t.Context(), `UPDATE charges SET amount_cents = 1 WHERE idempotency_key = $1`, chargeKey); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(t.Context(), `UPDATE sandbox_processor_records SET amount_cents = 7 WHERE kind = 'refund' AND idempotency_key = $1`, refundKey); err != nil {
		t.Fatal(err)
	}
	res, err = e.client.ListProcessorRecords(transfers, &paymentmethodsv1.ListProcessorRecordsRequest{IdempotencyKeys: []string{chargeKey, refundKey}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.GetRecords() {
		if want := map[string]int64{chargeKey: 52_500, refundKey: 7}[r.GetIdempotencyKey()]; r.GetAmountCents() != want {
			t.Errorf("%s: amount %d, want %d", r.GetIdempotencyKey(), r.GetAmountCents(), want)
		}
	}

	// A repeated charge after a restart (a new sandbox over the same table) is answered from
	// the records: the same charge, no second one.
	if n := e.count(t, `SELECT count(*) FROM sandbox_processor_records`); n != 3 {
		t.Fatalf("%d records, want 3", n)
	}
}

// Only the transfers service reads the processor's records; the request is bounded.
func TestListProcessorRecordsPolicyAndValidation(t *testing.T) {
	t.Parallel()
	e := start(t)
	req := &paymentmethodsv1.ListProcessorRecordsRequest{IdempotencyKeys: []string{"k"}}
	_, err := e.client.ListProcessorRecords(e.as(t, uuid.NewString()), req)
	wantCode(t, err, codes.PermissionDenied)
	_, err = e.client.ListProcessorRecords(e.asService(t, "oncall"), req)
	wantCode(t, err, codes.PermissionDenied)
	_, err = e.client.ListProcessorRecords(t.Context(), req)
	wantCode(t, err, codes.Unauthenticated)

	transfers := e.asService(t, "transfers")
	if res, err := e.client.ListProcessorRecords(transfers, &paymentmethodsv1.ListProcessorRecordsRequest{}); err != nil || len(res.GetRecords()) != 0 {
		t.Fatalf("no keys = %v, %v", res, err)
	}
	_, err = e.client.ListProcessorRecords(transfers, &paymentmethodsv1.ListProcessorRecordsRequest{IdempotencyKeys: make([]string, 1001)})
	wantCode(t, err, codes.InvalidArgument)
	_, err = e.client.ListProcessorRecords(transfers, &paymentmethodsv1.ListProcessorRecordsRequest{IdempotencyKeys: []string{""}})
	wantCode(t, err, codes.InvalidArgument)
}
