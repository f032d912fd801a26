package grpcport_test

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	grpcport "github.com/thumela/thumela/services/paymentmethods/internal/ports/grpc"
)

var tokenPattern = regexp.MustCompile(`^tok_[A-Za-z0-9_-]{32}$`)

func TestAddCardTokenizesAndLists(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)

	visa := cardNumber(t, "4")
	res, err := e.client.AddCard(ctx, &paymentmethodsv1.AddCardRequest{
		Name: "  Everyday  ", CardNumber: visa[:4] + " " + visa[4:8] + " " + visa[8:12] + " " + visa[12:],
		ExpiryMonth: 3, ExpiryYear: nextYear(), Cvv: "123",
	})
	if err != nil {
		t.Fatal(err)
	}
	first := res.GetPaymentMethod()
	wantYear := int32(2000) + nextYear()
	if first.GetName() != "Everyday" || first.GetBrand() != paymentmethodsv1.CardBrand_CARD_BRAND_VISA ||
		first.GetType() != paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD || first.GetLastFour() != visa[12:] ||
		first.GetExpiryMonth() != 3 || first.GetExpiryYear() != wantYear || first.GetUserId() != u.id {
		t.Fatalf("added = %v", first)
	}
	if !first.GetIsDefault() {
		t.Fatal("the first card is not the default")
	}
	if !tokenPattern.MatchString(first.GetToken()) {
		t.Fatalf("token %q", first.GetToken())
	}
	if e.processor.verifies.Load() != 1 {
		t.Fatalf("verifications = %d, want 1", e.processor.verifies.Load())
	}

	// A Mastercard with a four-digit year, not default; then a third card asked to be default.
	mc := e.addCard(t, u, "Travel", cardNumber(t, "2720"), false)
	if mc.GetIsDefault() || mc.GetBrand() != paymentmethodsv1.CardBrand_CARD_BRAND_MASTERCARD {
		t.Fatalf("second card = %v", mc)
	}
	time.Sleep(5 * time.Millisecond) // distinct created_at
	third := e.addCard(t, u, "Groceries", cardNumber(t, "51"), true)
	if !third.GetIsDefault() {
		t.Fatal("a card added with is_default is not the default")
	}

	list, err := e.client.ListPaymentMethods(ctx, &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	defaults := 0
	for _, m := range list.GetPaymentMethods() {
		names = append(names, m.GetName())
		if m.GetIsDefault() {
			defaults++
		}
	}
	// The default first, then newest first.
	if fmt.Sprint(names) != "[Groceries Travel Everyday]" || defaults != 1 {
		t.Fatalf("list = %v with %d defaults", names, defaults)
	}

	got, err := e.client.GetPaymentMethod(ctx, &paymentmethodsv1.GetPaymentMethodRequest{PaymentMethodId: mc.GetId()})
	if err != nil || !proto.Equal(got.GetPaymentMethod(), mc) {
		t.Fatalf("get = %v %v, want %v", got.GetPaymentMethod(), err, mc)
	}

	evs := e.outboxEvents(t)
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3 ADDED", len(evs))
	}
	for i, want := range []string{first.GetId(), mc.GetId(), third.GetId()} {
		if evs[i].GetChange() != paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_ADDED ||
			evs[i].GetPaymentMethodId() != want || evs[i].GetUserId() != u.id || evs[i].GetOccurredAt() == nil {
			t.Fatalf("event %d = %v", i, evs[i])
		}
	}
}

func violations(t *testing.T, err error) (fields, msgs []string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("error = %v, want InvalidArgument", err)
	}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fields, msgs = append(fields, v.GetField()), append(msgs, v.GetDescription())
			}
		}
	}
	return fields, msgs
}

func TestAddCardValidation(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)
	valid := func() *paymentmethodsv1.AddCardRequest {
		return &paymentmethodsv1.AddCardRequest{Name: "Card", CardNumber: cardNumber(t, "4"), ExpiryMonth: 12, ExpiryYear: nextYear(), Cvv: "123"}
	}
	lastMonth := time.Now().In(time.FixedZone("SAST", 7200)).AddDate(0, -1, 0)
	tests := []struct {
		name   string
		change func(*paymentmethodsv1.AddCardRequest)
		field  string
	}{
		{"no name", func(r *paymentmethodsv1.AddCardRequest) { r.Name = "" }, "name"},
		{"name of 51 characters", func(r *paymentmethodsv1.AddCardRequest) { r.Name = strings.Repeat("a", 51) }, "name"},
		{"amex", func(r *paymentmethodsv1.AddCardRequest) { r.CardNumber = "378282246310005" }, "card_number"},
		{"discover", func(r *paymentmethodsv1.AddCardRequest) { r.CardNumber = "6011111111111117" }, "card_number"},
		{"luhn", func(r *paymentmethodsv1.AddCardRequest) { r.CardNumber = "4242424242424241" }, "card_number"},
		{"month 13", func(r *paymentmethodsv1.AddCardRequest) { r.ExpiryMonth = 13 }, "expiry_month"},
		{"expired", func(r *paymentmethodsv1.AddCardRequest) {
			r.ExpiryMonth, r.ExpiryYear = int32(lastMonth.Month()), int32(lastMonth.Year())
		}, "expiry_year"},
		{"cvv of 4 digits", func(r *paymentmethodsv1.AddCardRequest) { r.Cvv = "1234" }, "cvv"},
		{"no cvv", func(r *paymentmethodsv1.AddCardRequest) { r.Cvv = "" }, "cvv"},
	}
	for _, tt := range tests {
		req := valid()
		tt.change(req)
		_, err := e.client.AddCard(ctx, req)
		fields, msgs := violations(t, err)
		if len(fields) != 1 || fields[0] != tt.field || status.Convert(err).Message() != msgs[0] {
			t.Errorf("%s: violations %v %q, message %q", tt.name, fields, msgs, status.Convert(err).Message())
		}
		// The sentence the sender reads, word for word.
		if want := "This card has expired."; tt.name == "expired" && status.Convert(err).Message() != want {
			t.Errorf("%s: message %q, want %q", tt.name, status.Convert(err).Message(), want)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM payment_methods") + e.count(t, "SELECT count(*) FROM outbox"); n != 0 {
		t.Fatalf("refused cards wrote %d rows", n)
	}
	if e.processor.verifies.Load() != 0 {
		t.Fatal("an invalid card reached the processor")
	}
}

// The same number twice for one user is refused (however it is spaced); another user may
// save it.
func TestSameCardTwiceIsRefused(t *testing.T) {
	t.Parallel()
	e := start(t)
	a, b := newUser(), newUser()
	number := cardNumber(t, "55")
	e.addCard(t, a, "Mine", number, false)
	_, err := e.client.AddCard(e.as(t, a.id), &paymentmethodsv1.AddCardRequest{
		Name: "Again", CardNumber: number[:8] + " " + number[8:], ExpiryMonth: 1, ExpiryYear: nextYear() + 1, Cvv: "999",
	})
	wantStatus(t, err, codes.AlreadyExists, grpcport.MsgAlreadySaved)
	e.addCard(t, b, "Shared card", number, false)
	if n := e.count(t, "SELECT count(*) FROM payment_methods"); n != 2 {
		t.Fatalf("%d methods, want 2", n)
	}
}

// A processor that declines the zero-amount verification: FailedPrecondition with its
// message, nothing stored. (No sandbox card is declined there; the processor is told to.)
func TestAddCardDeclinedByProcessor(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.processor.declineVerify.Store(true)
	u := newUser()
	_, err := e.client.AddCard(e.as(t, u.id), &paymentmethodsv1.AddCardRequest{
		Name: "Declined", CardNumber: cardNumber(t, "4"), ExpiryMonth: 12, ExpiryYear: nextYear(), Cvv: "123",
	})
	wantStatus(t, err, codes.FailedPrecondition, sandbox.MsgCardDeclined)
	if n := e.count(t, "SELECT count(*) FROM payment_methods") + e.count(t, "SELECT count(*) FROM card_vault"); n != 0 {
		t.Fatalf("a declined card left %d rows", n)
	}
}

func TestAtMostMaxMethods(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	for i := range 25 {
		e.addCard(t, u, fmt.Sprintf("Card %d", i), cardNumber(t, "4"), false)
	}
	_, err := e.client.AddCard(e.as(t, u.id), &paymentmethodsv1.AddCardRequest{
		Name: "One too many", CardNumber: cardNumber(t, "4"), ExpiryMonth: 12, ExpiryYear: nextYear(), Cvv: "123",
	})
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgTooMany)
}

// User B, whose token alone names them, cannot read, edit, default, delete or charge user A's
// methods, nor see them listed: every attempt on A's ids answers NotFound, exactly as an
// unknown id, and A's methods stay as they were.
func TestAnotherUsersMethodsAreNotFound(t *testing.T) {
	t.Parallel()
	e := start(t)
	a, b := newUser(), newUser()
	am := e.addCard(t, a, "A's card", cardNumber(t, "4"), false)
	am2 := e.addCard(t, a, "A's other card", cardNumber(t, "4"), false)
	asB := e.as(t, b.id)
	before, err := e.client.ListPaymentMethods(e.as(t, a.id), &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{am.GetId(), am2.GetId(), uuid.NewString(), "not-a-uuid", ""} {
		_, err := e.client.GetPaymentMethod(asB, &paymentmethodsv1.GetPaymentMethodRequest{PaymentMethodId: id})
		wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
		_, err = e.client.UpdatePaymentMethod(asB, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: id, Name: "Mallory", IsDefault: true})
		wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
		_, err = e.client.SetDefaultPaymentMethod(asB, &paymentmethodsv1.SetDefaultPaymentMethodRequest{PaymentMethodId: id})
		wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
		_, err = e.client.DeletePaymentMethod(asB, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: id})
		wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
	}
	own, err := e.client.ListPaymentMethods(asB, &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil || len(own.GetPaymentMethods()) != 0 {
		t.Fatalf("B's own list = %v %v", own, err)
	}
	// Charging A's token in B's name is refused the same way.
	_, err = e.client.Charge(e.asService(t, "transfers"), &paymentmethodsv1.ChargeRequest{
		UserId: b.id, Token: am.GetToken(), AmountCents: 1000, IdempotencyKey: uuid.NewString(),
	})
	wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)

	after, err := e.client.ListPaymentMethods(e.as(t, a.id), &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil || !proto.Equal(before, after) {
		t.Fatalf("A's methods changed: %v, were %v", after, before)
	}
	if n := e.count(t, "SELECT count(*) FROM outbox"); n != 2 {
		t.Fatalf("%d outbox rows, want A's two ADDED", n)
	}
}

// Twenty SetDefault calls at once, each for another of one user's methods, leave exactly one
// default, in every round.
func TestConcurrentSetDefaultLeavesOneDefault(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)
	var ids []string
	for i := range 20 {
		ids = append(ids, e.addCard(t, u, fmt.Sprintf("Card %d", i), cardNumber(t, "4"), false).GetId())
	}
	for round := range 3 {
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, len(ids))
		)
		for i, id := range ids {
			wg.Go(func() {
				<-start
				_, errs[i] = e.client.SetDefaultPaymentMethod(ctx, &paymentmethodsv1.SetDefaultPaymentMethodRequest{PaymentMethodId: id})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, call %d: %v", round, i, err)
			}
		}
		if n := e.count(t, "SELECT count(*) FROM payment_methods WHERE user_id = $1 AND is_default", u.id); n != 1 {
			t.Fatalf("round %d: %d defaults, want 1", round, n)
		}
		list, err := e.client.ListPaymentMethods(ctx, &paymentmethodsv1.ListPaymentMethodsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !list.GetPaymentMethods()[0].GetIsDefault() {
			t.Fatalf("round %d: the list does not start with the default", round)
		}
	}
}

func TestUpdatePaymentMethod(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)
	first := e.addCard(t, u, "First", cardNumber(t, "4"), false)
	second := e.addCard(t, u, "Second", cardNumber(t, "4"), false)

	// Renaming the default with is_default false keeps it the default: the flag only moves.
	res, err := e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: first.GetId(), Name: " Daily "})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.GetPaymentMethod(); m.GetName() != "Daily" || !m.GetIsDefault() || m.GetToken() != first.GetToken() || m.GetLastFour() != first.GetLastFour() {
		t.Fatalf("updated = %v", m)
	}
	// Renaming and making default at once: two events.
	res, err = e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: second.GetId(), Name: "Weekend", IsDefault: true})
	if err != nil || !res.GetPaymentMethod().GetIsDefault() {
		t.Fatalf("update = %v %v", res, err)
	}
	// Nothing changed: no event.
	if _, err := e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: second.GetId(), Name: "Weekend", IsDefault: true}); err != nil {
		t.Fatal(err)
	}
	if n := e.count(t, "SELECT count(*) FROM payment_methods WHERE is_default"); n != 1 {
		t.Fatalf("%d defaults", n)
	}
	var changes []string
	for _, ev := range e.outboxEvents(t)[2:] {
		changes = append(changes, ev.GetChange().String()+":"+map[bool]string{true: "first", false: "second"}[ev.GetPaymentMethodId() == first.GetId()])
	}
	want := "[PAYMENT_METHOD_CHANGE_UPDATED:first PAYMENT_METHOD_CHANGE_UPDATED:second PAYMENT_METHOD_CHANGE_DEFAULT_CHANGED:second]"
	if fmt.Sprint(changes) != want {
		t.Fatalf("events %v, want %s", changes, want)
	}

	_, err = e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: second.GetId(), Name: "  "})
	if fields, _ := violations(t, err); fmt.Sprint(fields) != "[name]" {
		t.Fatalf("fields %v", fields)
	}
	_, err = e.client.UpdatePaymentMethod(ctx, &paymentmethodsv1.UpdatePaymentMethodRequest{PaymentMethodId: second.GetId(), Name: "4111 1111 1111 1111"})
	if fields, _ := violations(t, err); fmt.Sprint(fields) != "[name]" {
		t.Fatalf("fields %v", fields)
	}

	// SetDefault on the default already: no event.
	before := len(e.outboxEvents(t))
	if _, err := e.client.SetDefaultPaymentMethod(ctx, &paymentmethodsv1.SetDefaultPaymentMethodRequest{PaymentMethodId: second.GetId()}); err != nil {
		t.Fatal(err)
	}
	if len(e.outboxEvents(t)) != before {
		t.Fatal("setting the default again wrote an event")
	}
}

// Delete: allowed for an unused method (the event is in the outbox, the vault envelope is
// gone, a deleted default hands over to the newest remaining card); refused for a method a
// charge or a transfer uses.
func TestDeletePaymentMethod(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	ctx := e.as(t, u.id)
	oldest := e.addCard(t, u, "Oldest", cardNumber(t, "4"), false) // default: the first card
	charged := e.addCard(t, u, "Charged", cardNumber(t, "4"), false)
	transferred := e.addCard(t, u, "In a transfer", cardNumber(t, "4"), false)
	newest := e.addCard(t, u, "Newest", cardNumber(t, "4"), false)

	// Used by a charge: refused at once (the charge records the use synchronously).
	if _, err := e.client.Charge(e.asService(t, "transfers"), &paymentmethodsv1.ChargeRequest{
		UserId: u.id, Token: charged.GetToken(), AmountCents: 5000, IdempotencyKey: uuid.NewString(),
	}); err != nil {
		t.Fatal(err)
	}
	_, err := e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: charged.GetId()})
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgInUse)

	// Used by a transfer that was never charged: known from the transfers service's event.
	transferID := uuid.NewString()
	payload, err := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: transferID, UserId: u.id, PaymentMethodId: transferred.GetId(), Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING,
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // redelivered: recorded once
		if _, err := e.js.Publish(t.Context(), "thumela.transfers."+u.id+".status", payload); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the transfer's usage", func() bool {
		return e.count(t, "SELECT count(*) FROM payment_method_usage WHERE payment_method_id = $1", transferred.GetId()) == 1
	})
	_, err = e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: transferred.GetId()})
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgInUse)
	// Unused: deleted, with its vault envelope; the deleted default hands over to the newest.
	before := len(e.outboxEvents(t))
	if _, err := e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: oldest.GetId()}); err != nil {
		t.Fatal(err)
	}
	if n := e.count(t, "SELECT count(*) FROM card_vault WHERE token = $1", oldest.GetToken()); n != 0 {
		t.Fatal("the vault envelope outlived its method")
	}
	list, err := e.client.ListPaymentMethods(ctx, &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.GetPaymentMethods()) != 3 || list.GetPaymentMethods()[0].GetId() != newest.GetId() || !list.GetPaymentMethods()[0].GetIsDefault() {
		t.Fatalf("after deleting the default: %v", list.GetPaymentMethods())
	}
	evs := e.outboxEvents(t)[before:]
	if len(evs) != 2 ||
		evs[0].GetChange() != paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DELETED || evs[0].GetPaymentMethodId() != oldest.GetId() ||
		evs[1].GetChange() != paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DEFAULT_CHANGED || evs[1].GetPaymentMethodId() != newest.GetId() {
		t.Fatalf("events = %v", evs)
	}
	// The new default goes too: the flag moves to the newest remaining card.
	if _, err := e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: newest.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err = e.client.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: oldest.GetId()})
	wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)

	// The events reach NATS through the relay.
	waitFor(t, "the outbox to drain", func() bool { return e.count(t, "SELECT count(*) FROM outbox WHERE published_at IS NULL") == 0 })
	stream, err := e.js.Stream(t.Context(), "THUMELA_EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := stream.GetLastMsgForSubject(t.Context(), "thumela.paymentmethods."+u.id+".changed")
	if err != nil {
		t.Fatal(err)
	}
	last := &paymentmethodsv1.PaymentMethodChanged{}
	if err := proto.Unmarshal(msg.Data, last); err != nil {
		t.Fatal(err)
	}
	if last.GetChange() != paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DEFAULT_CHANGED || last.GetPaymentMethodId() != transferred.GetId() {
		t.Fatalf("last event on NATS = %v", last)
	}

	// A later transfer with the same card writes nothing: the first use is all Delete needs.
	// A marker card's event after it shows when it was handled.
	marker := e.addCard(t, u, "Marker", cardNumber(t, "4"), false)
	for _, m := range []string{transferred.GetId(), marker.GetId()} {
		payload, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
			Id: uuid.NewString(), UserId: u.id, PaymentMethodId: m, Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING,
		}})
		if _, err := e.js.Publish(t.Context(), "thumela.transfers."+u.id+".status", payload); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the marker's usage", func() bool {
		return e.count(t, "SELECT count(*) FROM payment_method_usage WHERE payment_method_id = $1", marker.GetId()) == 1
	})
	if n := e.count(t, "SELECT count(*) FROM payment_method_usage WHERE payment_method_id = $1", transferred.GetId()); n != 1 {
		t.Errorf("%d usage rows for a card used by two transfers, want the first only", n)
	}
}

// An event about a method that is someone else's, unknown, or malformed records nothing, and
// neither does a transfer's event past pending (by then its charge holds the card).
func TestTransferEventsForOtherMethodsAreIgnored(t *testing.T) {
	t.Parallel()
	e := start(t)
	a, b := newUser(), newUser()
	am := e.addCard(t, a, "A's", cardNumber(t, "4"), false)
	later := e.addCard(t, a, "Named by a completed event", cardNumber(t, "4"), false)
	pending := transfersv1.TransferStatus_TRANSFER_STATUS_PENDING
	for _, tr := range []*transfersv1.Transfer{
		{Id: uuid.NewString(), UserId: b.id, PaymentMethodId: am.GetId(), Status: pending},
		{Id: uuid.NewString(), UserId: a.id, PaymentMethodId: uuid.NewString(), Status: pending},
		{Id: uuid.NewString(), UserId: a.id, PaymentMethodId: "garbage", Status: pending},
		{Id: uuid.NewString(), UserId: a.id, Status: pending},
		{Id: uuid.NewString(), UserId: a.id, PaymentMethodId: later.GetId(), Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED},
	} {
		payload, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: tr})
		if _, err := e.js.Publish(t.Context(), "thumela.transfers."+tr.GetUserId()+".status", payload); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.js.Publish(t.Context(), "thumela.transfers."+a.id+".status", []byte("not a proto \xff\xff")); err != nil {
		t.Fatal(err)
	}
	// A marker event after the others: once it is recorded, the others were handled.
	marker := e.addCard(t, a, "Marker", cardNumber(t, "4"), false)
	payload, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: uuid.NewString(), UserId: a.id, PaymentMethodId: marker.GetId(),
		Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING}})
	if _, err := e.js.Publish(t.Context(), "thumela.transfers."+a.id+".status", payload); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the marker", func() bool { return e.count(t, "SELECT count(*) FROM payment_method_usage") == 1 })
	for _, m := range []*paymentmethodsv1.PaymentMethod{am, later} {
		if _, err := e.client.DeletePaymentMethod(e.as(t, a.id), &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: m.GetId()}); err != nil {
			t.Fatalf("A's card %q, with no use recorded: %v", m.GetName(), err)
		}
	}
}
