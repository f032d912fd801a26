package grpcport_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
)

const wait = 15 * time.Second

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

// ListDeliveries answers only the caller's own deliveries: another user asking about the same
// reference gets nothing.
func TestListDeliveriesIsScopedToTheCaller(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{Reports: true})
	alice, bob := uuid.NewString(), uuid.NewString()
	const ref = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a99"
	sms := testkit.VoucherRequest(t, e.Key.Public(), alice, "+27821234567", ref)
	e.Publish(t, sms)
	e.WaitStatus(t, sms.GetId(), domain.StatusDelivered, wait)
	// Bob's own delivery about another reference.
	mail := testkit.CodeRequest(t, e.Key.Public(), bob, "bob@example.co.za", "111222")
	e.Publish(t, mail)
	e.WaitStatus(t, mail.GetId(), domain.StatusSent, wait)

	res, err := e.Client.ListDeliveries(e.UserContext(t, alice), &notificationsv1.ListDeliveriesRequest{References: []string{ref, "signup"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetDeliveries()) != 1 {
		t.Fatalf("alice sees %v", res.GetDeliveries())
	}
	d := res.GetDeliveries()[0]
	if d.GetRequestId() != sms.GetId() || d.GetStatus() != notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED ||
		d.GetChannel() != notificationsv1.Channel_CHANNEL_SMS || d.GetRecipient() != "+27821234567" ||
		d.GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED || d.GetReference() != ref ||
		d.GetAttempts() != 1 || d.GetQueuedAt() == nil || d.GetSentAt() == nil || d.GetDeliveredAt() == nil || d.GetFailedAt() != nil {
		t.Errorf("delivery %v", d)
	}

	res, err = e.Client.ListDeliveries(e.UserContext(t, bob), &notificationsv1.ListDeliveriesRequest{References: []string{ref}})
	if err != nil || len(res.GetDeliveries()) != 0 {
		t.Fatalf("bob asking about alice's reference: %v %v", res.GetDeliveries(), err)
	}
	res, err = e.Client.ListDeliveries(e.UserContext(t, bob), &notificationsv1.ListDeliveriesRequest{References: []string{"signup"}})
	if err != nil || len(res.GetDeliveries()) != 1 || res.GetDeliveries()[0].GetRequestId() != mail.GetId() {
		t.Fatalf("bob's own: %v %v", res.GetDeliveries(), err)
	}

	_, err = e.Client.ListDeliveries(t.Context(), &notificationsv1.ListDeliveriesRequest{References: []string{ref}})
	wantCode(t, err, codes.Unauthenticated)
	_, err = e.Client.ListDeliveries(e.ServiceContext(t, "bff"), &notificationsv1.ListDeliveriesRequest{References: []string{ref}})
	wantCode(t, err, codes.PermissionDenied)
	many := make([]string, 51)
	for i := range many {
		many[i] = uuid.NewString()
	}
	_, err = e.Client.ListDeliveries(e.UserContext(t, alice), &notificationsv1.ListDeliveriesRequest{References: many})
	wantCode(t, err, codes.InvalidArgument)
	_, err = e.Client.ListDeliveries(e.UserContext(t, alice), &notificationsv1.ListDeliveriesRequest{References: []string{""}})
	wantCode(t, err, codes.InvalidArgument)
}

// CheckSMSBudget tells a sender, before they ask for one, that their next SMS to a number would
// be failed for their budget: by the very rule the deliverer applies, per sender.
func TestCheckSMSBudgetAnswersAsTheDelivererJudges(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{SMSPerRecipientPerDay: 2})
	const number, other = "+27825550011", "+27825550012"
	sender := uuid.NewString()
	check := func(ctx context.Context, recipient string) (*notificationsv1.CheckSMSBudgetResponse, error) {
		return e.Client.CheckSMSBudget(ctx, &notificationsv1.CheckSMSBudgetRequest{Recipient: recipient})
	}
	for i := range 2 {
		res, err := check(e.UserContext(t, sender), number)
		if err != nil || res.GetSpent() || res.GetReason() != "" {
			t.Fatalf("before SMS %d: %v, %v; want not spent", i+1, res, err)
		}
		r := testkit.VoucherRequest(t, e.Key.Public(), sender, number, "TH-BUDGET-"+string(rune('A'+i)))
		e.Publish(t, r)
		e.WaitStatus(t, r.GetId(), domain.StatusSent, wait)
	}
	res, err := check(e.UserContext(t, sender), number)
	if err != nil || !res.GetSpent() || res.GetReason() != domain.ReasonRecipientBudget {
		t.Fatalf("at the budget: %v, %v; want spent with %q", res, err, domain.ReasonRecipientBudget)
	}
	// The deliverer agrees: the next SMS is failed for the budget.
	over := testkit.VoucherRequest(t, e.Key.Public(), sender, number, "TH-BUDGET-OVER")
	e.Publish(t, over)
	if d := e.WaitStatus(t, over.GetId(), domain.StatusFailed, wait); d.FailureReason != domain.ReasonRecipientBudget {
		t.Fatalf("the SMS over the budget: %+v", d)
	}
	// Another number, another sender: their budgets are their own.
	for name, c := range map[string]struct {
		ctx       context.Context
		recipient string
	}{"another number": {e.UserContext(t, sender), other}, "another sender": {e.UserContext(t, uuid.NewString()), number}} {
		if res, err := check(c.ctx, c.recipient); err != nil || res.GetSpent() {
			t.Errorf("%s: %v, %v; want not spent", name, res, err)
		}
	}
	_, err = check(e.UserContext(t, sender), "0825550011")
	wantCode(t, err, codes.InvalidArgument)
	_, err = check(t.Context(), number)
	wantCode(t, err, codes.Unauthenticated)
	_, err = check(e.ServiceContext(t, "bff"), number)
	wantCode(t, err, codes.PermissionDenied)
}

// A support message is stored with a ticket and e-mailed to the support inbox through SMTP,
// with the writer as Reply-To; from one address, the sixth message in ten minutes is refused
// with a retry delay.
func TestSubmitSupportMessage(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	visitor := e.ServiceContext(t, "bff")

	res, err := e.Client.SubmitSupportMessage(visitor, &notificationsv1.SubmitSupportMessageRequest{
		Kind: notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT, Name: "Sipho <b>Dlamini</b>",
		Email: "sipho@example.com", Subject: "Question about fees", Message: "How much\nis the fee?",
		ClientAddress: "203.0.113.7",
	})
	if err != nil {
		t.Fatal(err)
	}
	ticket := res.GetTicket()
	if !strings.HasPrefix(ticket, "THM-") || len(ticket) != 10 {
		t.Fatalf("ticket %q", ticket)
	}
	var kind, email, address string
	var user *string
	if err := e.Pool.QueryRow(t.Context(), `SELECT kind, email, host(client_address), user_id::text FROM support_messages WHERE ticket = $1`,
		ticket).Scan(&kind, &email, &address, &user); err != nil {
		t.Fatal(err)
	}
	if kind != "contact" || email != "sipho@example.com" || address != "203.0.113.7" || user != nil {
		t.Errorf("stored %s %s %s %v", kind, email, address, user)
	}
	mails := e.SMTP.WaitKept(t, testkit.SupportEmail, 1, wait)
	m := mails[0]
	if !strings.Contains(m.Subject, ticket) || !strings.Contains(m.Subject, "Question about fees") || m.Template != "support_message" ||
		!strings.Contains(m.Text, "How much\nis the fee?") || !strings.Contains(m.ReplyTo, "sipho@example.com") ||
		!strings.Contains(m.HTML, "&lt;b&gt;Dlamini") || !strings.Contains(m.Text, "Account: not signed in (the address above was typed and is not verified)") {
		t.Errorf("support mail: subject %q template %q reply-to %q\ntext %s\nhtml %s", m.Subject, m.Template, m.ReplyTo, m.Text, m.HTML)
	}

	// A signed-in sender: the account's e-mail and name when the form leaves them out.
	alice := uuid.NewString()
	res, err = e.Client.SubmitSupportMessage(e.UserContext(t, alice), &notificationsv1.SubmitSupportMessageRequest{
		Kind: notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK, ClientAddress: "198.51.100.9",
		Details: map[string]string{"rating": "5", "recommend": "yes"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Pool.QueryRow(t.Context(), `SELECT email, user_id::text FROM support_messages WHERE ticket = $1`,
		res.GetTicket()).Scan(&email, &user); err != nil {
		t.Fatal(err)
	}
	if email != "thandi@example.co.za" || user == nil || *user != alice {
		t.Errorf("user's message stored with %s %v", email, user)
	}
	m = e.SMTP.WaitKept(t, testkit.SupportEmail, 2, wait)[1]
	// Support knows the account, whatever address a form was given.
	if !strings.Contains(m.Text, "rating: 5") || !strings.Contains(m.Text, "Thandi Nkosi") ||
		!strings.Contains(m.Text, "Account: signed in as thandi@example.co.za (account "+alice+")") ||
		!strings.Contains(m.HTML, "signed in as thandi@example.co.za") {
		t.Errorf("feedback mail %s", m.Text)
	}
	// Its delivery is the user's, about the ticket.
	list, err := e.Client.ListDeliveries(e.UserContext(t, alice), &notificationsv1.ListDeliveriesRequest{References: []string{res.GetTicket()}})
	if err != nil || len(list.GetDeliveries()) != 1 {
		t.Errorf("the feedback's delivery: %v %v", list, err)
	}

	// The rate limit, per address, shared through PostgreSQL.
	ask := func(addr string) error {
		_, err := e.Client.SubmitSupportMessage(visitor, &notificationsv1.SubmitSupportMessageRequest{
			Kind:  notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION,
			Email: "spam@example.com", Message: "hello", ClientAddress: addr,
		})
		return err
	}
	for i := range 4 { // the first message from 203.0.113.7 counts too
		if err := ask("203.0.113.7"); err != nil {
			t.Fatalf("message %d: %v", i+2, err)
		}
	}
	err = ask("203.0.113.7")
	wantCode(t, err, codes.ResourceExhausted)
	wantRetryWithin(t, err, 10*time.Minute)
	if err := ask("203.0.113.8"); err != nil {
		t.Errorf("another address: %v", err)
	}
	var stored int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM support_messages`).Scan(&stored); err != nil || stored != 7 {
		t.Errorf("%d messages stored (%v), want 7", stored, err)
	}
}

// wantRetryWithin fails t unless err carries a google.rpc.RetryInfo of a positive delay of at
// most limit.
func wantRetryWithin(t *testing.T, err error, limit time.Duration) {
	t.Helper()
	var retry *errdetails.RetryInfo
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 || retry.GetRetryDelay().AsDuration() > limit {
		t.Errorf("retry info %v", retry)
	}
}

// TestSupportLimitCountsASignedInSenderByAccount: many customers share one address (a mobile
// carrier's NAT, an office), so a signed-in sender is counted by their account and the
// per-address limit counts visitors only. Visitors who spent their address's budget do not
// refuse a customer on the same address, and that customer's messages do not spend the
// visitors'; a customer over their own budget is told it is their account's, not their
// connection's.
func TestSupportLimitCountsASignedInSenderByAccount(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	const shared = "203.0.113.7"
	ask := func(ctx context.Context, addr string) error {
		_, err := e.Client.SubmitSupportMessage(ctx, &notificationsv1.SubmitSupportMessageRequest{
			Kind:  notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION,
			Email: "someone@example.com", Message: "hello", ClientAddress: addr,
		})
		return err
	}
	refused := func(err error, want string) {
		t.Helper()
		wantCode(t, err, codes.ResourceExhausted)
		msg := status.Convert(err).Message()
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(want) + ` Please try again in ([2-9]|10) minutes\.$`).MatchString(msg) {
			t.Errorf("refusal %q, want %q and when to try again", msg, want)
		}
		wantRetryWithin(t, err, 10*time.Minute)
	}
	visitor := e.ServiceContext(t, "bff")
	for i := range 5 {
		if err := ask(visitor, shared); err != nil {
			t.Fatalf("visitor's message %d: %v", i+1, err)
		}
	}
	refused(ask(visitor, shared), "Too many messages from your connection.")

	// A customer behind the same address: their account's own budget, 5 in 10 minutes.
	alice := e.UserContext(t, uuid.NewString())
	for i := range 5 {
		if err := ask(alice, shared); err != nil {
			t.Fatalf("signed-in message %d from the visitors' address: %v", i+1, err)
		}
	}
	refused(ask(alice, shared), "Too many messages from your account.")
	// From any address: the account is counted, not the address.
	refused(ask(alice, "198.51.100.9"), "Too many messages from your account.")
	// Another customer on the address is not refused because of alice or the visitors.
	if err := ask(e.UserContext(t, uuid.NewString()), shared); err != nil {
		t.Errorf("another customer on the address: %v", err)
	}
	refused(ask(visitor, shared), "Too many messages from your connection.")

	// Customers' messages do not spend the visitors' budget of their address.
	const office = "198.51.100.20"
	for i := range 5 {
		if err := ask(e.UserContext(t, uuid.NewString()), office); err != nil {
			t.Fatalf("customer %d at the office: %v", i+1, err)
		}
	}
	if err := ask(visitor, office); err != nil {
		t.Errorf("a visitor at the office after 5 customers: %v", err)
	}
}

func TestSubmitSupportMessageRefuses(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	valid := func() *notificationsv1.SubmitSupportMessageRequest {
		return &notificationsv1.SubmitSupportMessageRequest{
			Kind:  notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION,
			Email: "v@example.com", Message: "hello", ClientAddress: "203.0.113.7",
		}
	}
	for name, tc := range map[string]struct {
		ctx   context.Context
		req   *notificationsv1.SubmitSupportMessageRequest
		code  codes.Code
		field string
	}{
		"no token":          {t.Context(), valid(), codes.Unauthenticated, ""},
		"another service":   {e.ServiceContext(t, "transfers"), valid(), codes.PermissionDenied, ""},
		"no kind":           {e.ServiceContext(t, "bff"), func() *notificationsv1.SubmitSupportMessageRequest { r := valid(); r.Kind = 0; return r }(), codes.InvalidArgument, "kind"},
		"visitor no e-mail": {e.ServiceContext(t, "bff"), func() *notificationsv1.SubmitSupportMessageRequest { r := valid(); r.Email = ""; return r }(), codes.InvalidArgument, "email"},
		"long message": {e.ServiceContext(t, "bff"), func() *notificationsv1.SubmitSupportMessageRequest {
			r := valid()
			r.Message = strings.Repeat("x", 5001)
			return r
		}(), codes.InvalidArgument, "message"},
		"visitor no address": {e.ServiceContext(t, "bff"), func() *notificationsv1.SubmitSupportMessageRequest {
			r := valid()
			r.ClientAddress = ""
			return r
		}(), codes.InvalidArgument, "client_address"},
	} {
		_, err := e.Client.SubmitSupportMessage(tc.ctx, tc.req)
		if status.Code(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
			continue
		}
		if tc.field == "" {
			continue
		}
		var br *errdetails.BadRequest
		for _, d := range status.Convert(err).Details() {
			if b, ok := d.(*errdetails.BadRequest); ok {
				br = b
			}
		}
		if br == nil || br.GetFieldViolations()[0].GetField() != tc.field {
			t.Errorf("%s: violations %v, want %s", name, br, tc.field)
		}
	}
}
