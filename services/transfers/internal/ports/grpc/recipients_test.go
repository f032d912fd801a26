package grpcport_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const recipientsChangedType = "thumela.transfers.v1.RecipientsChanged"

// recipientsEvents returns the RecipientsChanged events of user, in write order, checking
// their subject.
func recipientsEvents(t *testing.T, e *testkit.Env, user string) []*transfersv1.RecipientsChanged {
	t.Helper()
	var out []*transfersv1.RecipientsChanged
	for _, row := range e.Outbox(t) {
		if row.Type != recipientsChangedType {
			continue
		}
		var ev transfersv1.RecipientsChanged
		if err := proto.Unmarshal(row.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetUserId() != user {
			continue
		}
		if want := "thumela.transfers." + user + ".recipients"; row.Subject != want {
			t.Fatalf("RecipientsChanged on %q, want %q", row.Subject, want)
		}
		out = append(out, &ev)
	}
	return out
}

func listRecipients(t *testing.T, e *testkit.Env, user, query string) []*transfersv1.Recipient {
	t.Helper()
	res, err := e.Client.ListRecipients(e.Ctx(t, user), &transfersv1.ListRecipientsRequest{Query: query})
	if err != nil {
		t.Fatalf("ListRecipients: %v", err)
	}
	return res.GetRecipients()
}

// send creates a transfer from user with edit applied and waits for the worker to finish it.
func send(t *testing.T, e *testkit.Env, user, pm string, want domain.Status, edit func(*transfersv1.CreateTransferRequest)) *transfersv1.Transfer {
	t.Helper()
	req := testkit.Request("k-"+uuid.NewString(), pm)
	req.RecipientKnownConfirmed = true // a first payment to the phone asks for it
	if edit != nil {
		edit(req)
	}
	tr := create(t, e.Ctx(t, user), e, req)
	e.WaitStatus(t, tr.GetId(), want, 10*time.Second)
	return getTransfer(t, e, user, tr.GetId())
}

// A completed transfer saves its recipient, in the completing transaction, with one
// RecipientsChanged event; a repeat payment to the phone updates the one row (name, bank,
// last paid) and announces it again.
func TestRecipientSavedOnCompletionAndUpdatedOnRepeat(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()

	first := send(t, e, user, pm, domain.StatusCompleted, nil)
	if !first.GetSaveRecipient() {
		t.Fatalf("save_recipient = false on a transfer that did not untick it")
	}
	got := listRecipients(t, e, user, "")
	if len(got) != 1 {
		t.Fatalf("%d recipients after one completed transfer, want 1", len(got))
	}
	r := got[0]
	if r.GetName() != "Sipho Dlamini" || r.GetPhone() != "+27821234567" || r.GetBank() != feesv1.Bank_BANK_CAPITEC ||
		!r.GetLastPaidAt().AsTime().Equal(first.GetUpdatedAt().AsTime()) || r.GetId() == "" {
		t.Fatalf("saved recipient %v (transfer completed at %v)", r, first.GetUpdatedAt().AsTime())
	}
	if n := len(recipientsEvents(t, e, user)); n != 1 {
		t.Fatalf("%d RecipientsChanged events after the completion, want 1", n)
	}

	e.Clock.Advance(time.Hour)
	second := send(t, e, user, pm, domain.StatusCompleted, func(r *transfersv1.CreateTransferRequest) {
		r.RecipientName, r.RecipientPhone, r.Bank = "Sipho M. Dlamini", "+27 82 123 4567", feesv1.Bank_BANK_FNB
	})
	got = listRecipients(t, e, user, "")
	if len(got) != 1 || got[0].GetId() != r.GetId() || got[0].GetName() != "Sipho M. Dlamini" || got[0].GetBank() != feesv1.Bank_BANK_FNB ||
		!got[0].GetLastPaidAt().AsTime().Equal(second.GetUpdatedAt().AsTime()) || !got[0].GetCreatedAt().AsTime().Equal(r.GetCreatedAt().AsTime()) {
		t.Fatalf("after a repeat payment: %v, want the same row with the new name, bank and last paid", got)
	}
	if n := len(recipientsEvents(t, e, user)); n != 2 {
		t.Fatalf("%d RecipientsChanged events after two completions, want 2", n)
	}

	// A third recipient, paid later, comes first.
	e.Clock.Advance(time.Hour)
	send(t, e, user, pm, domain.StatusCompleted, func(r *transfersv1.CreateTransferRequest) {
		r.RecipientName, r.RecipientPhone = "Naledi Mokoena", "083 555 0101"
	})
	got = listRecipients(t, e, user, "")
	if len(got) != 2 || got[0].GetName() != "Naledi Mokoena" || got[1].GetName() != "Sipho M. Dlamini" {
		t.Fatalf("recipients %v, want the most recently paid first", got)
	}
}

// Unticking 'Save {name} for next time' is kept on the transfer and saves nothing; a declined
// transfer saves nothing either.
func TestRecipientNotSavedWhenUntickedOrFailed(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())

	user, pm := e.NewUser()
	tr := send(t, e, user, pm, domain.StatusCompleted, func(r *transfersv1.CreateTransferRequest) { r.DoNotSaveRecipient = true })
	if tr.GetSaveRecipient() {
		t.Fatal("save_recipient = true on a transfer that unticked it")
	}
	if got := listRecipients(t, e, user, ""); len(got) != 0 {
		t.Fatalf("recipients %v after an unticked transfer, want none", got)
	}

	declined, dpm := e.NewUser(testkit.TokenDecline)
	send(t, e, declined, dpm, domain.StatusFailed, nil)
	if got := listRecipients(t, e, declined, ""); len(got) != 0 {
		t.Fatalf("recipients %v after a declined transfer, want none", got)
	}
	for _, u := range []string{user, declined} {
		if n := len(recipientsEvents(t, e, u)); n != 0 {
			t.Fatalf("%d RecipientsChanged events for a transfer that saved nothing", n)
		}
	}
}

// Edits and deletes: validated like a transfer's recipient, one recipient per phone, each
// change announced; the search finds names and phones in either notation.
func TestRecipientUpdateDeleteAndSearch(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	send(t, e, user, pm, domain.StatusCompleted, nil)
	e.Clock.Advance(time.Minute)
	send(t, e, user, pm, domain.StatusCompleted, func(r *transfersv1.CreateTransferRequest) {
		r.RecipientName, r.RecipientPhone = "Naledi Mokoena", "083 555 0101"
	})
	list := listRecipients(t, e, user, "")
	naledi, sipho := list[0], list[1]

	for q, want := range map[string]string{"sipho": "Sipho Dlamini", "MOKO": "Naledi Mokoena", "082 123": "Sipho Dlamini",
		"0835550101": "Naledi Mokoena", "+2782": "Sipho Dlamini"} {
		if got := listRecipients(t, e, user, q); len(got) != 1 || got[0].GetName() != want {
			t.Errorf("query %q: %v, want %s", q, got, want)
		}
	}
	if got := listRecipients(t, e, user, "nobody"); len(got) != 0 {
		t.Errorf("query nobody: %v", got)
	}
	events := len(recipientsEvents(t, e, user))

	_, err := e.Client.UpdateRecipient(ctx, &transfersv1.UpdateRecipientRequest{
		RecipientId: sipho.GetId(), Name: "S1pho", Phone: "12345", Bank: feesv1.Bank_BANK_UNSPECIFIED})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("invalid edit: %v, want InvalidArgument", err)
	}
	_, err = e.Client.UpdateRecipient(ctx, &transfersv1.UpdateRecipientRequest{
		RecipientId: sipho.GetId(), Name: "www.fnb-help.co.za", Phone: "072 000 1111", Bank: feesv1.Bank_BANK_ABSA})
	if got := violations(t, err); !slices.Equal(got, []string{"name: Names can't contain a web address."}) {
		t.Fatalf("edit to a web address: %v", got)
	}
	_, err = e.Client.UpdateRecipient(ctx, &transfersv1.UpdateRecipientRequest{
		RecipientId: sipho.GetId(), Name: "Sipho", Phone: "083 555 0101", Bank: feesv1.Bank_BANK_ABSA})
	if st := status.Convert(err); st.Code() != codes.AlreadyExists || st.Message() != domain.MsgRecipientPhoneTaken {
		t.Fatalf("edit to another recipient's phone: %v, want AlreadyExists", err)
	}
	e.Clock.Advance(time.Minute)
	res, err := e.Client.UpdateRecipient(ctx, &transfersv1.UpdateRecipientRequest{
		RecipientId: sipho.GetId(), Name: "  Sipho  Dlamini-Khumalo ", Phone: "072 000 1111", Bank: feesv1.Bank_BANK_ABSA})
	if err != nil {
		t.Fatal(err)
	}
	u := res.GetRecipient()
	if u.GetName() != "Sipho Dlamini-Khumalo" || u.GetPhone() != "+27720001111" || u.GetBank() != feesv1.Bank_BANK_ABSA ||
		!u.GetUpdatedAt().AsTime().Equal(e.Clock.Now()) || !u.GetLastPaidAt().AsTime().Equal(sipho.GetLastPaidAt().AsTime()) {
		t.Fatalf("edited recipient %v", u)
	}
	if got := listRecipients(t, e, user, "072"); len(got) != 1 || got[0].GetId() != sipho.GetId() {
		t.Fatalf("after the edit: %v", got)
	}

	if _, err := e.Client.DeleteRecipient(ctx, &transfersv1.DeleteRecipientRequest{RecipientId: naledi.GetId()}); err != nil {
		t.Fatal(err)
	}
	if got := listRecipients(t, e, user, ""); len(got) != 1 || got[0].GetId() != sipho.GetId() {
		t.Fatalf("after the delete: %v", got)
	}
	if _, err := e.Client.DeleteRecipient(ctx, &transfersv1.DeleteRecipientRequest{RecipientId: naledi.GetId()}); status.Code(err) != codes.NotFound {
		t.Fatalf("second delete: %v, want NotFound", err)
	}
	// The refused edits changed nothing and announced nothing; the edit and the delete did.
	if n := len(recipientsEvents(t, e, user)); n != events+2 {
		t.Fatalf("%d RecipientsChanged events, want %d", n, events+2)
	}
}

// Another user's recipients are not found, not listed, not editable, not deletable.
func TestRecipientsScopedToTheirUser(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	owner, pm := e.NewUser()
	send(t, e, owner, pm, domain.StatusCompleted, nil)
	r := listRecipients(t, e, owner, "")[0]

	other, _ := e.NewUser()
	octx := e.Ctx(t, other)
	if got := listRecipients(t, e, other, ""); len(got) != 0 {
		t.Fatalf("another user lists %v", got)
	}
	_, err := e.Client.UpdateRecipient(octx, &transfersv1.UpdateRecipientRequest{
		RecipientId: r.GetId(), Name: "Mallory", Phone: "082 999 0000", Bank: feesv1.Bank_BANK_FNB})
	if st := status.Convert(err); st.Code() != codes.NotFound || st.Message() != grpcport.MsgRecipientNotFound {
		t.Fatalf("editing another user's: %v, want NotFound", err)
	}
	if _, err := e.Client.DeleteRecipient(octx, &transfersv1.DeleteRecipientRequest{RecipientId: r.GetId()}); status.Code(err) != codes.NotFound {
		t.Fatalf("deleting another user's: %v, want NotFound", err)
	}
	if _, err := e.Client.DeleteRecipient(octx, &transfersv1.DeleteRecipientRequest{RecipientId: "not-a-uuid"}); status.Code(err) != codes.NotFound {
		t.Fatalf("deleting a malformed id: %v, want NotFound", err)
	}
	if got := listRecipients(t, e, owner, ""); len(got) != 1 || got[0].GetName() != "Sipho Dlamini" {
		t.Fatalf("the owner's recipient changed: %v", got)
	}
	if _, err := e.Client.ListRecipients(context.Background(), &transfersv1.ListRecipientsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without a token: %v", err)
	}
	if n := len(recipientsEvents(t, e, other)); n != 0 {
		t.Fatalf("%d events for the other user", n)
	}
}
