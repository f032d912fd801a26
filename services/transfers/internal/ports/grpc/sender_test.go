package grpcport_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// latestSMS is the newest VOUCHER_ISSUED request about transferID, with its opened secrets.
func latestSMS(t *testing.T, e *testkit.Env, transferID string) (*notificationsv1.NotificationRequest, map[string]string) {
	t.Helper()
	sms := e.VoucherSMSes(t, transferID)
	if len(sms) == 0 {
		t.Fatalf("no voucher SMS for %s", transferID)
	}
	req := sms[len(sms)-1].Request
	return req, e.Secrets(t, req)
}

func getTransfer(t *testing.T, e *testkit.Env, user, id string) *transfersv1.Transfer {
	t.Helper()
	res, err := e.Client.GetTransfer(e.Ctx(t, user), &transfersv1.GetTransferRequest{TransferId: id})
	if err != nil {
		t.Fatal(err)
	}
	return res.GetTransfer()
}

// Resending re-issues the voucher: a new number and PIN by a new SMS, the old number void at
// once (answered at the ATM like any unknown number), the expiry kept; three times at most.
func TestResendVoucher(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := e.Ctx(t, v.user)
	id := v.transfer.GetId()
	before := getTransfer(t, e, v.user, id)
	if before.GetVoucher().GetResendsLeft() != 3 || before.GetVoucher().GetPhoneChangesLeft() != 3 {
		t.Fatalf("voucher %v", before.GetVoucher())
	}
	e.Clock.Advance(time.Hour)
	numbers := []string{v.number}
	for i := 1; i <= domain.MaxVoucherResends; i++ {
		res, err := e.Client.ResendVoucher(ctx, &transfersv1.ResendVoucherRequest{TransferId: id})
		if err != nil {
			t.Fatalf("resend %d: %v", i, err)
		}
		got := res.GetTransfer().GetVoucher()
		if slices.Contains(numbers, got.GetNumber()) || !got.GetExpiresAt().AsTime().Equal(before.GetVoucher().GetExpiresAt().AsTime()) ||
			got.GetResendsLeft() != int32(3-i) || got.GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
			t.Fatalf("resend %d: voucher %v", i, got)
		}
		numbers = append(numbers, got.GetNumber())
		sms, secrets := latestSMS(t, e, id)
		if secrets["voucher_number"] != got.GetNumber() || len(secrets["pin"]) != 4 || sms.GetRecipient() != "+27821234567" ||
			sms.GetParams()["expires_at"] != before.GetVoucher().GetExpiresAt().AsTime().UTC().Format(time.RFC3339) ||
			sms.GetParams()["replaces_earlier"] != "true" {
			t.Fatalf("resend %d: SMS %v (a resend's SMS says it replaces the earlier one)", i, sms)
		}
	}
	smss := e.VoucherSMSes(t, id)
	ids := map[string]bool{}
	for _, s := range smss {
		ids[s.Request.GetId()] = true
	}
	if len(smss) != 1+domain.MaxVoucherResends || len(ids) != len(smss) {
		t.Fatalf("%d SMS requests with %d ids, want %d distinct", len(smss), len(ids), 1+domain.MaxVoucherResends)
	}
	if n := len(e.VoucherEvents(t, id)); n != 1+domain.MaxVoucherResends {
		t.Fatalf("%d voucher events, want one per issue", n)
	}
	_, err := e.Client.ResendVoucher(ctx, &transfersv1.ResendVoucherRequest{TransferId: id})
	wantCode(t, "a fourth resend", err, codes.FailedPrecondition, "resent 3 times")
	var resends int
	if err := e.Pool.QueryRow(context.Background(), `SELECT voucher_resends FROM transfers WHERE id = $1`, id).Scan(&resends); err != nil || resends != 3 {
		t.Fatalf("stored resends %d (%v)", resends, err)
	}

	// At the ATM, every old number is void: the answer of a number that never existed.
	_, newPIN := latestSMS(t, e, id)
	tried := slices.Clone(numbers)
	for _, old := range numbers[:len(numbers)-1] {
		r := v.request()
		r.VoucherNumber, r.Pin = old, newPIN["pin"]
		_, a := e.Client.CollectVoucher(atm(t, e), r)
		never := v.request()
		never.VoucherNumber, never.Pin = neverIssued(tried), newPIN["pin"]
		tried = append(tried, never.VoucherNumber)
		_, b := e.Client.CollectVoucher(atm(t, e), never)
		sameAnswer(t, "an old number", a, b)
		if refused(t, a).GetAttemptsLeft() != 4 {
			t.Fatalf("old number: %v", a)
		}
	}
	// The new number with the new PIN pays out.
	r := v.request()
	r.VoucherNumber, r.Pin = numbers[len(numbers)-1], newPIN["pin"]
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatalf("the new voucher: %v", err)
	}
	// Collected: no more resends.
	_, err = e.Client.ResendVoucher(ctx, &transfersv1.ResendVoucherRequest{TransferId: id})
	wantCode(t, "resend after collection", err, codes.FailedPrecondition, "")
}

// neverIssued is a well-formed voucher number that none of numbers is.
func neverIssued(numbers []string) string {
	for n := 0; ; n++ {
		s := strings.Repeat("0", 9) + string(rune('0'+n))
		if !slices.Contains(numbers, s) {
			return s
		}
	}
}

// Resend and phone changes are the sender's alone, for a voucher that awaits collection.
func TestReissueIsTheSendersAndNeedsAVoucherAwaitingCollection(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	intruder, _ := e.NewUser()
	for name, id := range map[string]string{"another user's": v.transfer.GetId(), "unknown": uuid.NewString(), "malformed": "x"} {
		_, err := e.Client.ResendVoucher(e.Ctx(t, intruder), &transfersv1.ResendVoucherRequest{TransferId: id})
		wantCode(t, "resend of "+name, err, codes.NotFound, grpcport.MsgTransferNotFound)
		_, err = e.Client.ChangeRecipientPhone(e.Ctx(t, intruder), &transfersv1.ChangeRecipientPhoneRequest{TransferId: id, RecipientPhone: "083 555 0101"})
		wantCode(t, "phone change of "+name, err, codes.NotFound, grpcport.MsgTransferNotFound)
	}
	_, err := e.Client.ResendVoucher(atm(t, e), &transfersv1.ResendVoucherRequest{TransferId: v.transfer.GetId()})
	wantCode(t, "the ATM gateway", err, codes.PermissionDenied, "")
	if sms := e.VoucherSMSes(t, v.transfer.GetId()); len(sms) != 1 {
		t.Fatalf("%d SMS requests after refused resends", len(sms))
	}

	// A transfer not yet completed, and a cancelled voucher, cannot be re-issued.
	user, pm := e.NewUser()
	pending := create(t, e.Ctx(t, user), e, testkit.Request("pending", pm))
	_, err = e.Client.ResendVoucher(e.Ctx(t, user), &transfersv1.ResendVoucherRequest{TransferId: pending.GetId()})
	wantCode(t, "pending", err, codes.FailedPrecondition, "awaiting collection")
	if _, err := e.Client.CancelTransfer(e.Ctx(t, v.user), &transfersv1.CancelTransferRequest{TransferId: v.transfer.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err = e.Client.ResendVoucher(e.Ctx(t, v.user), &transfersv1.ResendVoucherRequest{TransferId: v.transfer.GetId()})
	wantCode(t, "cancelled", err, codes.FailedPrecondition, "awaiting collection")
	_, err = e.Client.ChangeRecipientPhone(e.Ctx(t, v.user), &transfersv1.ChangeRecipientPhoneRequest{TransferId: v.transfer.GetId(), RecipientPhone: "083 555 0101"})
	wantCode(t, "cancelled", err, codes.FailedPrecondition, "awaiting collection")
}

// Changing the phone sends a new voucher to the new number; the old voucher number is void, and
// only the new phone collects.
func TestChangeRecipientPhone(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := e.Ctx(t, v.user)
	id := v.transfer.GetId()
	for phone, msg := range map[string]string{
		"011 123 4567": "Please enter a valid South African mobile number.",
		"not a phone":  "Please enter a valid South African mobile number.",
		"":             "Please enter a valid South African mobile number.",
		"+27821234567": "This is already the recipient's number. To send the voucher again, resend it.",
	} {
		_, err := e.Client.ChangeRecipientPhone(ctx, &transfersv1.ChangeRecipientPhoneRequest{TransferId: id, RecipientPhone: phone})
		if got := violations(t, err); !slices.Equal(got, []string{"recipient_phone: " + msg}) {
			t.Fatalf("phone %q: %v", phone, got)
		}
	}
	res, err := e.Client.ChangeRecipientPhone(ctx, &transfersv1.ChangeRecipientPhoneRequest{TransferId: id, RecipientPhone: "083 555 0101"})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.GetTransfer()
	if tr.GetRecipientPhone() != "+27835550101" || tr.GetVoucher().GetNumber() == v.number || tr.GetVoucher().GetPhoneChangesLeft() != 2 ||
		tr.GetVoucher().GetResendsLeft() != 3 {
		t.Fatalf("transfer %v", tr)
	}
	sms, secrets := latestSMS(t, e, id)
	if sms.GetRecipient() != "+27835550101" || secrets["voucher_number"] != tr.GetVoucher().GetNumber() || len(e.VoucherSMSes(t, id)) != 2 {
		t.Fatalf("SMS %v", sms)
	}
	if _, ok := sms.GetParams()["replaces_earlier"]; ok {
		t.Fatalf("the new number's first SMS says it replaces one it never got: %v", sms)
	}
	// The saved recipient moved with it: the next send from /recipients goes to the new number.
	if saved := listRecipients(t, e, v.user, ""); len(saved) != 1 || saved[0].GetPhone() != "+27835550101" {
		t.Fatalf("saved recipients after the change of number: %v", saved)
	}
	evs := e.VoucherEvents(t, id)
	if last := evs[len(evs)-1]; last.GetTransfer().GetRecipientPhone() != "+27835550101" || last.GetVoucher().GetNumber() != tr.GetVoucher().GetNumber() {
		t.Fatalf("the live event %v", last)
	}
	// The old number, with the old PIN and phone: void.
	_, err = e.Client.CollectVoucher(atm(t, e), v.request())
	if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS {
		t.Fatalf("the old voucher: %v", err)
	}
	// The new number with the old phone is wrong; with the new phone it pays out.
	r := v.request()
	r.VoucherNumber, r.Pin = tr.GetVoucher().GetNumber(), secrets["pin"]
	_, err = e.Client.CollectVoucher(atm(t, e), r)
	if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS {
		t.Fatalf("the new voucher with the old phone: %v", err)
	}
	r = v.request()
	r.VoucherNumber, r.Pin, r.RecipientPhone = tr.GetVoucher().GetNumber(), secrets["pin"], "0835550101"
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatalf("the new voucher with the new phone: %v", err)
	}

	// Three changes at most.
	w := issue(t, e)
	for i, phone := range []string{"083 555 0101", "071 222 3333", "060 987 6543"} {
		if _, err := e.Client.ChangeRecipientPhone(e.Ctx(t, w.user), &transfersv1.ChangeRecipientPhoneRequest{TransferId: w.transfer.GetId(), RecipientPhone: phone}); err != nil {
			t.Fatalf("change %d: %v", i+1, err)
		}
	}
	_, err = e.Client.ChangeRecipientPhone(e.Ctx(t, w.user), &transfersv1.ChangeRecipientPhoneRequest{TransferId: w.transfer.GetId(), RecipientPhone: "082 999 8888"})
	wantCode(t, "a fourth change", err, codes.FailedPrecondition, "changed 3 times")
}

// senderPIN is chosen so that it cannot appear by chance among what is scrubbed below.
const senderPIN = "4739"

var (
	uuidPattern  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern  = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([+-][0-9]{2}(:[0-9]{2})?|Z)?`)
	byteaPattern = regexp.MustCompile(`\\\\x[0-9a-f]*`)
)

// scrub removes from b the values that are random or clock-made (ids, times, voucher numbers),
// in which four given digits could appear by chance.
func scrub(b []byte, numbers []string) []byte {
	b = uuidPattern.ReplaceAll(b, nil)
	b = timePattern.ReplaceAll(b, nil)
	for _, n := range numbers {
		b = bytes.ReplaceAll(b, []byte(n), nil)
	}
	return b
}

// assertNoSecret fails if secret appears anywhere in the service's schema (every table, as
// JSON, with each bytea column decoded too) or in any outbox payload (the bytes the relay
// publishes to JetStream as they are), once random and clock-made values are scrubbed.
func assertNoSecret(t *testing.T, e *testkit.Env, secret string, numbers []string) {
	t.Helper()
	ctx := context.Background()
	rows, err := e.Pool.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'transfers' AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if rows.Err() != nil || !slices.Contains(tables, "collection_requests") || !slices.Contains(tables, "outbox") {
		t.Fatalf("tables %v (%v)", tables, rows.Err())
	}
	for _, table := range tables {
		rows, err := e.Pool.Query(ctx, `SELECT row_to_json(x)::text FROM `+table+` x`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var js string
			if err := rows.Scan(&js); err != nil {
				t.Fatal(err)
			}
			for _, h := range byteaPattern.FindAllString(js, -1) {
				raw, err := hex.DecodeString(h[3:])
				if err == nil && bytes.Contains(scrub(raw, numbers), []byte(secret)) {
					t.Errorf("table %s holds the secret in a bytea column", table)
				}
			}
			if bytes.Contains(scrub(byteaPattern.ReplaceAll([]byte(js), nil), numbers), []byte(secret)) {
				t.Errorf("table %s holds the secret: %s", table, js)
			}
		}
		rows.Close()
	}
	for _, row := range e.Outbox(t) {
		if bytes.Contains(scrub(row.Payload, numbers), []byte(secret)) {
			t.Errorf("the %s on %s holds the secret", row.Type, row.Subject)
		}
	}
}

// A PIN only the sender knows: it becomes the voucher's (and stays across a re-issue), the SMS
// carries the voucher number alone, and the PIN is nowhere in clear: not in the database, the
// outbox or what it publishes.
func TestSenderChosenPIN(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	req := testkit.Request("wizard-pin", pm)
	req.SenderPin = senderPIN
	tr := create(t, e.Ctx(t, user), e, req)
	id := tr.GetId()
	done := e.WaitStatus(t, id, domain.StatusCompleted, 15*time.Second)
	number := done.Voucher().Number

	got := getTransfer(t, e, user, id)
	if !got.GetVoucher().GetPinChosenBySender() {
		t.Fatalf("voucher %v", got.GetVoucher())
	}
	sms, secrets := latestSMS(t, e, id)
	if !maps.Equal(secrets, map[string]string{"voucher_number": number}) || sms.GetParams()["pin_by_sender"] != "true" {
		t.Fatalf("SMS params %v, secrets hold %d values", sms.GetParams(), len(secrets))
	}
	// A re-issue keeps the sender's PIN: a new number only.
	res, err := e.Client.ResendVoucher(e.Ctx(t, user), &transfersv1.ResendVoucherRequest{TransferId: id})
	if err != nil {
		t.Fatal(err)
	}
	newNumber := res.GetTransfer().GetVoucher().GetNumber()
	sms, secrets = latestSMS(t, e, id)
	if !maps.Equal(secrets, map[string]string{"voucher_number": newNumber}) || sms.GetParams()["pin_by_sender"] != "true" ||
		!res.GetTransfer().GetVoucher().GetPinChosenBySender() {
		t.Fatalf("re-issued SMS params %v, secrets hold %d values", sms.GetParams(), len(secrets))
	}
	v := voucher{transfer: tr, user: user, number: newNumber, pin: senderPIN}
	wrongPIN := v.request()
	wrongPIN.Pin = "4738"
	_, _ = e.Client.CollectVoucher(atm(t, e), wrongPIN) // a wrong PIN, recorded
	if _, err := e.Client.CollectVoucher(atm(t, e), v.request()); err != nil {
		t.Fatalf("the sender's PIN at the ATM: %v", err)
	}
	assertNoSecret(t, e, senderPIN, []string{number, newNumber})
}

// The sender's PIN is part of the request's identity (as a keyed digest): the same key with
// the same PIN is the same transfer; with another PIN, or none, it is another body.
func TestSenderPINAndIdempotency(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	req := testkit.Request("wizard-1", pm)
	req.SenderPin = senderPIN
	first := create(t, ctx, e, req)
	again := testkit.Request("wizard-1", pm)
	again.SenderPin = " " + senderPIN + " "
	if second := create(t, ctx, e, again); second.GetId() != first.GetId() {
		t.Fatal("the same PIN made another transfer")
	}
	for _, pin := range []string{"4738", ""} {
		other := testkit.Request("wizard-1", pm)
		other.SenderPin = pin
		_, err := e.Client.CreateTransfer(ctx, other)
		wantCode(t, "PIN "+pin+" under the same key", err, codes.AlreadyExists, "")
	}
	if rows(t, e, user) != 1 {
		t.Fatal("refused requests stored transfers")
	}
	// And the other way round: made without a PIN, a retry with one is another body.
	plain := create(t, ctx, e, testkit.Request("wizard-2", pm))
	withPIN := testkit.Request("wizard-2", pm)
	withPIN.SenderPin = senderPIN
	_, err := e.Client.CreateTransfer(ctx, withPIN)
	wantCode(t, "a PIN added on retry", err, codes.AlreadyExists, "")
	if plain.GetId() == first.GetId() {
		t.Fatal("two keys, one transfer")
	}
	assertNoSecret(t, e, senderPIN, nil)
}

func TestSenderPINRulesOverGRPC(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	for pin, msg := range map[string]string{
		"123": domain.MsgPINFormat, "12345": domain.MsgPINFormat, "12ab": domain.MsgPINFormat,
		"0000": domain.MsgPINWeak, "1111": domain.MsgPINWeak, "1234": domain.MsgPINWeak, "0123": domain.MsgPINWeak,
		"6789": domain.MsgPINWeak, "9876": domain.MsgPINWeak, "3210": domain.MsgPINWeak,
	} {
		req := testkit.Request("k", pm)
		req.SenderPin = pin
		_, err := e.Client.CreateTransfer(e.Ctx(t, user), req)
		if got := violations(t, err); !slices.Equal(got, []string{"sender_pin: " + msg}) {
			t.Errorf("PIN %q: %v", pin, got)
		}
	}
	if rows(t, e, user) != 0 {
		t.Fatal("a refused PIN stored a transfer")
	}
}

// Amounts are whole rand in multiples of R10, from R10 to the per-transfer limit.
func TestAmountsInMultiplesOfTenRand(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	for i, cents := range []int64{1, 999, 1_001, 1_050, 1_500, 50_050, 299_990, 300_001} {
		req := testkit.Request("bad-"+string(rune('a'+i)), pm)
		req.AmountCents = cents
		_, err := e.Client.CreateTransfer(ctx, req)
		if got := violations(t, err); !slices.Equal(got, []string{"amount_cents: ATMs pay out notes: choose an amount in multiples of R10."}) {
			t.Errorf("%d c: %v", cents, got)
		}
	}
	for i, cents := range []int64{1_000, 2_000, 150_000, 300_000} {
		req := testkit.Request("ok-"+string(rune('a'+i)), pm)
		req.AmountCents = cents
		create(t, ctx, e, req)
	}
	req := testkit.Request("over", pm)
	req.AmountCents = 301_000
	if le, _ := limitDetail(t, func() error { _, err := e.Client.CreateTransfer(ctx, req); return err }()); le.GetKind() != transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER {
		t.Fatalf("R3,010: %v", le)
	}
}

// The transfer says where its refund stands: none, pending (cancelled, not yet refunded) and
// refunded, so that no screen says "refunded" too early or "Completed" for a refunded one.
func TestRefundStatus(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	if got := getTransfer(t, e, v.user, v.transfer.GetId()); got.GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_NONE {
		t.Fatalf("before: %v", got.GetRefundStatus())
	}
	res, err := e.Client.CancelTransfer(e.Ctx(t, v.user), &transfersv1.CancelTransferRequest{TransferId: v.transfer.GetId()})
	if err != nil || res.GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_PENDING {
		t.Fatalf("cancelled: %v, %v", res.GetTransfer().GetRefundStatus(), err)
	}
	e.StartWorker(t, nil, e.WorkerConfig())
	testkit.Eventually(t, 10*time.Second, "the refund", func() bool {
		return getTransfer(t, e, v.user, v.transfer.GetId()).GetRefundStatus() == transfersv1.RefundStatus_REFUND_STATUS_REFUNDED
	})
	list, err := e.Client.ListTransfers(e.Ctx(t, v.user), &transfersv1.ListTransfersRequest{})
	if err != nil || list.GetTransfers()[0].GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_REFUNDED {
		t.Fatalf("listed: %v, %v", list, err)
	}
	// The live events: the cancel's with the refund pending, then the refund made.
	evs := e.VoucherEvents(t, v.transfer.GetId())
	if n := len(evs); n < 2 || evs[n-2].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_PENDING ||
		evs[n-1].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_REFUNDED {
		t.Fatalf("the cancel's and the refund's live events: %v", evs)
	}
}
