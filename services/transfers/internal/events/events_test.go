package events_test

import (
	"bytes"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

var (
	t0       = time.Date(2026, time.March, 18, 12, 0, 0, 0, domain.Johannesburg)
	transfer = uuid.MustParse("5f0c2a1e-8d6b-4c1a-9e2f-0a1b2c3d4e5f")
	sender   = uuid.MustParse("0b8e6d2c-1f3a-4b5c-8d7e-9f0a1b2c3d4e")
)

// Chosen so that neither appears, by chance, among the request's clear values (phone, amounts,
// times, ids): finding one in the request's bytes can only be a leak.
const (
	pin    = "4739"
	number = "8061597342"
)

// issued is a R500 Capitec transfer to 082 123 4567 (fee R11.50) whose voucher was just
// issued with number and pin, by a sender with e-mail address email; its events are taken.
func issued(t *testing.T, email string) (*domain.Transfer, []domain.Event) {
	t.Helper()
	req, err := domain.NewRequest(domain.RequestInput{
		IdempotencyKey: "k1", RecipientName: "Sipho Dlamini", RecipientPhone: "0821234567",
		Bank: domain.Capitec, AmountCents: 50_000, PaymentMethodID: "pm1",
	})
	if err != nil {
		t.Fatal(err)
	}
	fee := domain.Fee{BankFee: domain.Cents(1000), PlatformFee: domain.Cents(150)}
	tr := domain.NewTransfer(transfer, sender, req, domain.PaymentMethodRef{ID: "pm1", Token: "tok"}, fee,
		domain.Sender{DisplayName: "Thandi N.", FirstName: "Thandi", Email: email}, t0)
	if err := tr.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents() // created and claimed: their own transactions
	v := domain.IssuedVoucher{Number: number, PIN: pin, PINHash: "hmac-sha256$k$mac", ExpiresAt: t0.Add(domain.DefaultVoucherTTL)}
	if err := tr.Complete("ch_1", v, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	return tr, tr.TakeEvents()
}

// requests decodes the notification requests among msgs, failing on any that is not ephemeral
// and on any other message that is.
func requests(t *testing.T, msgs []outbox.Message) ([]*notificationsv1.NotificationRequest, []outbox.Message) {
	t.Helper()
	var (
		out  []*notificationsv1.NotificationRequest
		rows []outbox.Message
	)
	for _, m := range msgs {
		req, ok := m.Payload.(*notificationsv1.NotificationRequest)
		if ok != m.Ephemeral {
			t.Fatalf("%s: ephemeral %v for a %T", m.Subject, m.Ephemeral, m.Payload)
		}
		if ok {
			if m.ID.String() != req.GetId() {
				t.Fatalf("outbox id %s, request id %s", m.ID, req.GetId())
			}
			out, rows = append(out, req), append(rows, m)
		}
	}
	return out, rows
}

func wantParams(t *testing.T, req *notificationsv1.NotificationRequest, want map[string]string) {
	t.Helper()
	if !maps.Equal(req.GetParams(), want) {
		t.Errorf("%s params:\n got %v\nwant %v", req.GetTemplate(), req.GetParams(), want)
	}
}

// The voucher's issue asks for the recipient's SMS and the sender's receipt: templates and
// params, no text; the voucher number and PIN only sealed, never in the request's bytes.
func TestVoucherIssuedRequestsTheSMSAndTheReceipt(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	tr, evs := issued(t, "thandi@example.com")
	msgs, err := events.Messages(tr, evs, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, rows := requests(t, msgs)
	if len(msgs) != 4 || len(reqs) != 2 {
		t.Fatalf("%d messages, %d requests; want status, voucher, SMS and receipt", len(msgs), len(reqs))
	}
	sms, receipt := reqs[0], reqs[1]
	if rows[0].Subject != "thumela.notifications.transfers."+sender.String()+".sms" || rows[1].Subject != "thumela.notifications.transfers."+sender.String()+".email" {
		t.Fatalf("subjects %s, %s", rows[0].Subject, rows[1].Subject)
	}
	if sms.GetChannel() != notificationsv1.Channel_CHANNEL_SMS || sms.GetRecipient() != "+27821234567" ||
		sms.GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED || sms.GetUserId() != sender.String() ||
		sms.GetReference() != transfer.String() || sms.GetSourceService() != "transfers" ||
		!sms.GetCreatedAt().AsTime().Equal(t0.Add(time.Second)) || sms.GetSecrets().GetKeyId() != key.ID {
		t.Fatalf("SMS request = %v", sms)
	}
	wantParams(t, sms, map[string]string{
		"sender_name": "Thandi N.", "amount_cents": "50000", "bank": "Capitec",
		"expires_at": "2026-03-25T10:00:00Z", "reference": "5f0c2a1e",
	})
	if got := sealtest.OpenSecrets(t, key, sms); !maps.Equal(got, map[string]string{"voucher_number": number, "pin": pin}) {
		t.Fatalf("sealed secrets hold %d values, want the voucher number and the PIN", len(got))
	}
	payload, err := proto.Marshal(sms)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(payload, []byte(pin)) || bytes.Contains(payload, []byte(number)) {
		t.Fatal("the SMS request holds the PIN or the voucher number in clear")
	}

	if receipt.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL || receipt.GetRecipient() != "thandi@example.com" ||
		receipt.GetTemplate() != notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT || receipt.GetUserId() != sender.String() ||
		receipt.GetReference() != transfer.String() || receipt.GetSecrets() != nil {
		t.Fatalf("receipt request = %v", receipt)
	}
	wantParams(t, receipt, map[string]string{
		"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "recipient_phone": "+27821234567", "bank": "Capitec",
		"amount_cents": "50000", "fee_cents": "1150", "total_cents": "51150", "reference": "5f0c2a1e",
		"created_at": "2026-03-18T10:00:00Z", "expires_at": "2026-03-25T10:00:00Z",
	})
	// Nothing else the service publishes carries a secret either.
	for _, m := range msgs {
		b, err := proto.Marshal(m.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(pin)) {
			t.Errorf("%T holds the PIN", m.Payload)
		}
	}
}

// A step that is retried (its transaction rolled back and run again, or taken over by
// another worker) writes the same request ids, so the notifications service sends once.
func TestRequestIDsComeFromTheOperation(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	tr, evs := issued(t, "thandi@example.com")
	first, err := events.Messages(tr, evs, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	again, err := events.Messages(tr, evs, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uuid.UUID]bool{}
	for i := range first {
		if first[i].ID != again[i].ID || first[i].ID == uuid.Nil || seen[first[i].ID] {
			t.Fatalf("message %d: ids %s and %s", i, first[i].ID, again[i].ID)
		}
		seen[first[i].ID] = true
	}
}

// Collection and the refund tell the sender by e-mail.
func TestCollectionAndRefundEmails(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)

	tr, _ := issued(t, "thandi@example.com")
	collect, err := domain.NewCollectRequest(domain.CollectInput{
		VoucherNumber: number, PIN: pin, RecipientPhone: "0821234567", Bank: domain.Capitec, ATMID: "CPT-ATM-0042",
		AmountCents: 50_000, STAN: "000042", RRN: "612300000042",
	})
	if err != nil {
		t.Fatal(err)
	}
	pins := domain.NewPINHasher(mustPINKey(t))
	restored := withPINHash(tr, pins.Hash(transfer, pin))
	at := t0.Add(3 * time.Hour)
	if err := restored.Collect(collect, pins, at); err != nil {
		t.Fatal(err)
	}
	msgs, err := events.Messages(restored, restored.TakeEvents(), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := requests(t, msgs)
	if len(msgs) != 2 || len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_CASH_COLLECTED ||
		reqs[0].GetRecipient() != "thandi@example.com" || reqs[0].GetReference() != transfer.String() {
		t.Fatalf("collected: %d messages, requests %v", len(msgs), reqs)
	}
	if _, ok := msgs[0].Payload.(*transfersv1.VoucherChanged); !ok {
		t.Fatalf("collected: first message %T, want the VoucherChanged", msgs[0].Payload)
	}
	wantParams(t, reqs[0], map[string]string{
		"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000", "bank": "Capitec",
		"location": "Capitec ATM CPT-ATM-0042", "at": "2026-03-18T13:00:00Z", "reference": "5f0c2a1e",
	})

	for _, reason := range []string{"cancelled", "expired"} {
		tr, _ := issued(t, "thandi@example.com")
		var err error
		if reason == "cancelled" {
			err = tr.Cancel(t0)
		} else {
			err = tr.Expire(t0.Add(domain.DefaultVoucherTTL))
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.ClaimRefund(t0.Add(domain.DefaultVoucherTTL), t0.Add(domain.DefaultVoucherTTL+time.Minute)); err != nil {
			t.Fatal(err)
		}
		msgs, err := events.Messages(tr, tr.TakeEvents(), key.Public())
		if err != nil {
			t.Fatal(err)
		}
		// No e-mail before the refund is made; a cancellation tells the recipient by SMS (an
		// expiry does not: the recipient was reminded before it).
		reqs, _ := requests(t, msgs)
		switch {
		case reason == "expired" && len(reqs) != 0:
			t.Fatalf("expired: a request before the refund is made: %v", reqs)
		case reason == "cancelled" && (len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_CANCELLED ||
			reqs[0].GetChannel() != notificationsv1.Channel_CHANNEL_SMS || reqs[0].GetRecipient() != "+27821234567" || reqs[0].GetSecrets() != nil):
			t.Fatalf("cancelled: requests %v, want the recipient's cancellation SMS alone", reqs)
		case reason == "cancelled":
			wantParams(t, reqs[0], map[string]string{"sender_name": "Thandi N.", "amount_cents": "50000", "reference": "5f0c2a1e"})
		}
		if err := tr.Refunded("re_1", t0.Add(domain.DefaultVoucherTTL)); err != nil {
			t.Fatal(err)
		}
		msgs, err = events.Messages(tr, tr.TakeEvents(), key.Public())
		if err != nil {
			t.Fatal(err)
		}
		// The transfer as refunded, for the sender's open pages, then the e-mail.
		changed, ok := msgs[0].Payload.(*transfersv1.VoucherChanged)
		if !ok || changed.GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_REFUNDED ||
			msgs[0].Subject != "thumela.transfers."+tr.UserID().String()+".voucher" {
			t.Fatalf("%s: first refunded message %s %v, want the transfer refunded on .voucher", reason, msgs[0].Subject, msgs[0].Payload)
		}
		reqs, _ = requests(t, msgs)
		if len(msgs) != 2 || len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_REFUNDED ||
			reqs[0].GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL {
			t.Fatalf("%s: refunded messages %v", reason, msgs)
		}
		wantParams(t, reqs[0], map[string]string{
			"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "total_cents": "51150", "reason": reason,
			"reference": "5f0c2a1e",
		})
	}
}

// The fifth wrong PIN at an ATM locks the voucher: the sender's open pages get the voucher's
// event and the sender an e-mail saying until when and that a resend lifts it; the attempts
// before it ask for nothing.
func TestVoucherLockedEmail(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	tr, _ := issued(t, "thandi@example.com")
	pins := domain.NewPINHasher(mustPINKey(t))
	restored := withPINHash(tr, pins.Hash(transfer, pin))
	wrong, err := domain.NewCollectRequest(domain.CollectInput{
		VoucherNumber: number, PIN: "9150", RecipientPhone: "0821234567", Bank: domain.Capitec, ATMID: "CPT-ATM-0042",
		AmountCents: 50_000, STAN: "000042", RRN: "612300000042",
	})
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(3 * time.Hour)
	for i := 1; i < domain.MaxCollectAttempts; i++ {
		if err := restored.Collect(wrong, pins, at); !errors.Is(err, domain.ErrVoucherCredentials) {
			t.Fatalf("wrong attempt %d: %v", i, err)
		}
		if msgs, err := events.Messages(restored, restored.TakeEvents(), key.Public()); err != nil || len(msgs) != 0 {
			t.Fatalf("wrong attempt %d: messages %v, %v", i, msgs, err)
		}
	}
	var lockedErr *domain.VoucherLockedError
	if err := restored.Collect(wrong, pins, at); !errors.As(err, &lockedErr) {
		t.Fatalf("fifth wrong attempt: %v, want the lock", err)
	}
	evs := restored.TakeEvents()
	if len(evs) != 1 {
		t.Fatalf("fifth wrong attempt: events %v, want the lock", evs)
	}
	locked, ok := evs[0].(domain.VoucherLocked)
	if !ok {
		t.Fatalf("fifth wrong attempt: events %v, want the lock", evs)
	}
	msgs, err := events.Messages(restored, evs, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, rows := requests(t, msgs)
	if len(msgs) != 2 || len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_LOCKED ||
		reqs[0].GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL || reqs[0].GetRecipient() != "thandi@example.com" {
		t.Fatalf("locked: %d messages, requests %v", len(msgs), reqs)
	}
	if changed, ok := msgs[0].Payload.(*transfersv1.VoucherChanged); !ok || changed.GetVoucher().GetLockedUntil() == nil {
		t.Fatalf("locked: first message %v, want the VoucherChanged with the lock", msgs[0].Payload)
	}
	wantParams(t, reqs[0], map[string]string{
		"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000", "bank": "Capitec",
		"until": locked.Until.UTC().Format(time.RFC3339), "reference": "5f0c2a1e",
	})
	// One lock, one e-mail: a retried step keeps the id, and it is not the event's.
	again, err := events.Messages(restored, []domain.Event{locked}, key.Public())
	if err != nil || len(again) != 2 || again[1].ID != rows[0].ID || rows[0].ID == msgs[0].ID {
		t.Fatalf("the lock's messages again: %v, %v", again, err)
	}
}

// A transfer made before the sender's address was kept gets the SMS and no e-mail.
func TestNoEmailWithoutAnAddress(t *testing.T) {
	t.Parallel()
	tr, evs := issued(t, "")
	msgs, err := events.Messages(tr, evs, sealtest.NewKey(t).Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := requests(t, msgs)
	if len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED {
		t.Fatalf("requests %v, want the SMS alone", reqs)
	}
}

// Without a key to seal to, nothing is written in clear instead: the transaction fails.
func TestNoKeyNoSMS(t *testing.T) {
	t.Parallel()
	tr, evs := issued(t, "thandi@example.com")
	if _, err := events.Messages(tr, evs, seal.PublicKey{}); err == nil {
		t.Fatal("messages written without a key to seal the PIN to")
	}
}

func mustPINKey(t *testing.T) domain.PINKey {
	t.Helper()
	k, err := domain.NewPINKey([]byte("events-test-pin-key-0123456789ab"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// withPINHash is tr as stored with its voucher's PIN MACed as hash (the test's voucher was
// issued with a placeholder hash).
func withPINHash(tr *domain.Transfer, hash string) *domain.Transfer {
	s := tr.State()
	s.Voucher.PINHash = hash
	return domain.Restore(s)
}

// Steps that can happen more than once name their occurrence in their ids: each re-issue's SMS
// and event, each collection (by its request's RRN) and reversal, and its e-mail. Retried, each
// keeps its id; none collides with another.
func TestRepeatableStepsHaveTheirOwnIDs(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	pins := domain.NewPINHasher(mustPINKey(t))
	tr, evs := issued(t, "thandi@example.com")
	tr = withPINHash(tr, pins.Hash(transfer, pin))
	all, err := events.Messages(tr, evs, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	step := func(do func() error) []outbox.Message {
		t.Helper()
		if err := do(); err != nil {
			t.Fatal(err)
		}
		evs := tr.TakeEvents()
		msgs, err := events.Messages(tr, evs, key.Public())
		if err != nil {
			t.Fatal(err)
		}
		again, _ := events.Messages(tr, evs, key.Public())
		for i := range msgs {
			if msgs[i].ID != again[i].ID {
				t.Fatal("a retried step changed its ids")
			}
		}
		all = append(all, msgs...)
		return msgs
	}
	collect := func(rrn string) error {
		r, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: tr.Voucher().Number, PIN: pin, RecipientPhone: "0821234567",
			Bank: domain.Capitec, ATMID: "CPT-1", AmountCents: 50_000, STAN: "1", RRN: rrn, ATMLocation: "Capitec ATM Sandton City"})
		if err != nil {
			return err
		}
		return tr.Collect(r, pins, t0.Add(time.Hour))
	}
	reissued := step(func() error {
		return tr.ResendVoucher(domain.IssuedVoucher{Number: "1111111111", PIN: "2580", PINHash: pins.Hash(transfer, "2580")}, t0)
	})
	reqs, _ := requests(t, reissued)
	if len(reissued) != 2 || len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED ||
		!maps.Equal(sealtest.OpenSecrets(t, key, reqs[0]), map[string]string{"voucher_number": "1111111111", "pin": "2580"}) {
		t.Fatalf("re-issue messages %v", reissued)
	}
	step(func() error {
		return tr.ResendVoucher(domain.IssuedVoucher{Number: "2222222222", PIN: pin, PINHash: pins.Hash(transfer, pin)}, t0)
	})
	collected := step(func() error { return collect("R1") })
	if reqs, _ := requests(t, collected); reqs[0].GetParams()["location"] != "Capitec ATM Sandton City" {
		t.Fatalf("cash collected params %v", reqs[0].GetParams())
	}
	reversed := step(func() error { return tr.ReverseCollection(reversalOf(tr, "R1"), t0.Add(2*time.Hour)) })
	// The "collected" e-mail is corrected: the cash was not paid out; the voucher still stands.
	if reqs, _ := requests(t, reversed); len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_CASH_NOT_DISPENSED ||
		reqs[0].GetParams()["expires_at"] == "" || reqs[0].GetRecipient() != "thandi@example.com" {
		t.Fatalf("reversal requests %v", reqs)
	}
	step(func() error { return collect("R2") })
	step(func() error { return tr.ReverseCollection(reversalOf(tr, "R2"), t0.Add(2*time.Hour)) })
	seen := map[uuid.UUID]bool{}
	for _, m := range all {
		if seen[m.ID] {
			t.Fatalf("id %s twice (%T on %s)", m.ID, m.Payload, m.Subject)
		}
		seen[m.ID] = true
	}
	if len(all) != 4+2+2+2+2+2+2 {
		t.Fatalf("%d messages", len(all))
	}
}

// With the sender's PIN, the SMS request carries the voucher number alone, and says so.
func TestSenderPINSMS(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	pins := domain.NewPINHasher(mustPINKey(t))
	req, err := domain.NewRequest(domain.RequestInput{
		IdempotencyKey: "k1", RecipientName: "Sipho Dlamini", RecipientPhone: "0821234567",
		Bank: domain.Capitec, AmountCents: 50_000, PaymentMethodID: "pm1", SenderPIN: pin,
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := domain.NewTransfer(transfer, sender, req.KeyedBy(pins), domain.PaymentMethodRef{ID: "pm1", Token: "tok"}, domain.Fee{},
		domain.Sender{DisplayName: "Thandi N."}, t0)
	_ = tr.ClaimCharge(t0, t0.Add(time.Minute))
	tr.TakeEvents()
	if err := tr.Complete("ch", domain.IssuedVoucher{Number: number, PIN: "2580", PINHash: pins.Hash(transfer, "2580"), ExpiresAt: t0.Add(time.Hour)}, t0); err != nil {
		t.Fatal(err)
	}
	msgs, err := events.Messages(tr, tr.TakeEvents(), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := requests(t, msgs)
	if len(reqs) != 1 || reqs[0].GetParams()["pin_by_sender"] != "true" ||
		!maps.Equal(sealtest.OpenSecrets(t, key, reqs[0]), map[string]string{"voucher_number": number}) {
		t.Fatalf("SMS request %v", reqs)
	}
	for _, m := range msgs {
		b, _ := proto.Marshal(m.Payload)
		if bytes.Contains(b, []byte(pin)) {
			t.Fatalf("%T holds the sender's PIN", m.Payload)
		}
	}
	// The transfer's API form says so, and never carries a PIN.
	if v := events.Transfer(tr).GetVoucher(); !v.GetPinChosenBySender() {
		t.Fatalf("voucher %v", v)
	}
}

// The reminder SMS: the voucher SMS's params, no secret, once per transfer.
func TestReminderSMS(t *testing.T) {
	t.Parallel()
	tr, _ := issued(t, "thandi@example.com")
	at := t0.Add(domain.DefaultVoucherTTL - domain.ReminderBefore)
	if err := tr.Remind(at); err != nil {
		t.Fatal(err)
	}
	msgs, err := events.Messages(tr, tr.TakeEvents(), sealtest.NewKey(t).Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := requests(t, msgs)
	if len(msgs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_REMINDER || reqs[0].GetSecrets() != nil ||
		reqs[0].GetRecipient() != "+27821234567" {
		t.Fatalf("reminder %v", reqs)
	}
	wantParams(t, reqs[0], map[string]string{
		"sender_name": "Thandi N.", "amount_cents": "50000", "bank": "Capitec",
		"expires_at": "2026-03-25T10:00:00Z", "reference": "5f0c2a1e",
	})
}

// The receipt names the credit that paid the fee and what the card was charged only when credit
// paid something, so the e-mail never calls the total "charged" when part of it was credit.
func TestTransferReceiptSplitsTheCredit(t *testing.T) {
	t.Parallel()
	tr, _ := issued(t, "thandi@example.com")
	_, params := events.TransferReceipt(tr)
	if _, ok := params["credit_applied_cents"]; ok {
		t.Fatalf("a receipt without credit names it: %v", params)
	}
	s := tr.State()
	s.CreditApplied = domain.Cents(1150)
	_, params = events.TransferReceipt(domain.Restore(s))
	if params["credit_applied_cents"] != "1150" || params["card_charge_cents"] != "50000" || params["total_cents"] != "51150" {
		t.Fatalf("receipt params %v", params)
	}
}

// A reversal that comes once the voucher's time was up corrects the "collected" e-mail without a
// date the voucher no longer has: the e-mail says the refund follows.
func TestReversalPastTheExpiryLeavesTheDateOut(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	pins := domain.NewPINHasher(mustPINKey(t))
	tr, _ := issued(t, "thandi@example.com")
	tr = withPINHash(tr, pins.Hash(transfer, pin))
	r, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: tr.Voucher().Number, PIN: pin, RecipientPhone: "0821234567",
		Bank: domain.Capitec, ATMID: "CPT-1", AmountCents: 50_000, STAN: "1", RRN: "R1", ATMLocation: "Capitec ATM Sandton City"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Collect(r, pins, tr.Voucher().ExpiresAt.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	late := tr.Voucher().ExpiresAt.Add(time.Hour)
	if err := tr.ReverseCollection(reversalOf(tr, "R1"), late); err != nil {
		t.Fatal(err)
	}
	msgs, err := events.Messages(tr, tr.TakeEvents(), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := requests(t, msgs)
	if len(reqs) != 1 || reqs[0].GetTemplate() != notificationsv1.Template_TEMPLATE_CASH_NOT_DISPENSED {
		t.Fatalf("requests %v", reqs)
	}
	if _, ok := reqs[0].GetParams()["expires_at"]; ok {
		t.Fatalf("a voucher past its expiry is said to stand: %v", reqs[0].GetParams())
	}
}

// reversalOf is a reversal of the ATM request rrn that repeats the voucher's number, as the
// ATM gateway's does.
func reversalOf(tr *domain.Transfer, rrn string) domain.ReversalKey {
	return domain.ReversalKey{Bank: domain.Capitec, RRN: rrn, STAN: "7", ATMID: "ATM-7", Amount: domain.Cents(50_000),
		VoucherNumber: tr.Voucher().Number}
}
